import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui";
import { UpgradeBanner } from "@/components/upgrade-hint";
import { hasFeature, planOf, plans } from "@/lib/plans";
import { workspacePage } from "@/lib/actions/workspace";
import { Importer } from "./importer";

export const metadata: Metadata = { title: "Import links" };

export default async function ImportPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace } = await workspacePage(slug);
  const plan = planOf(workspace.plan);
  const allowed = hasFeature(plan, "BulkLinks");
  const cheapest = Object.values(plans()).find((p) => hasFeature(p, "BulkLinks"));
  return (
    <div className="mx-auto max-w-5xl">
      <PageHeader
        title="Import links from CSV"
        description="Create many links at once from a spreadsheet. Every row is checked like a link made by hand."
        actions={
          <Link href={`/w/${slug}/links`} className="text-sm font-medium text-brand-600 hover:underline">
            ← All links
          </Link>
        }
      />
      {!allowed && (
        <UpgradeBanner slug={slug}>
          Bulk import is not included in the {plan.name} plan{cheapest ? `; it comes with ${cheapest.name} and higher` : ""}.
        </UpgradeBanner>
      )}
      <Importer slug={slug} allowed={allowed} />
    </div>
  );
}
