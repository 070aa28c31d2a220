import type { Metadata } from "next";
import { listDomains } from "@/lib/domains";
import { config } from "@/lib/config";
import { hasFeature, planOf, plans } from "@/lib/plans";
import { Badge, Card, PageHeader } from "@/components/ui";
import { UpgradeBanner } from "@/components/upgrade-hint";
import { workspacePage } from "@/lib/actions/workspace";
import { AddDomainButton, DomainCard } from "./domains-client";

export const metadata: Metadata = { title: "Domains" };

export default async function DomainsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, can } = await workspacePage(slug);
  const canManage = can("domains.manage");
  const plan = planOf(workspace.plan);
  const allowed = hasFeature(plan, "CustomDomains");
  const cheapest = Object.values(plans()).find((p) => hasFeature(p, "CustomDomains"));
  const domains = await listDomains(workspace.id);
  const shortDomain = config().shortDomain;
  const tlsOnDemand = config().TLS_ON_DEMAND;

  return (
    <>
      <PageHeader
        title="Domains"
        description="Serve short links on your own host, such as links.example.com."
        actions={canManage && <AddDomainButton slug={slug} disabled={!allowed} />}
      />
      {!allowed && (
        <UpgradeBanner slug={slug}>
          Custom domains are not included in the {plan.name} plan{cheapest ? `; they come with ${cheapest.name} and higher` : ""}.
          {domains.length > 0 && " Domains added earlier stay listed and can be removed."}
        </UpgradeBanner>
      )}
      <div className="space-y-4">
        <Card>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <div>
              <p className="font-mono text-sm font-medium">{shortDomain}</p>
              <p className="text-xs text-slate-500">The service&apos;s own short domain, always available.</p>
            </div>
            <Badge tone="blue">Default</Badge>
          </div>
        </Card>
        {domains.map((d) => (
          <DomainCard key={d.id} slug={slug} domain={d} canManage={canManage} canVerify={allowed} tlsOnDemand={tlsOnDemand} />
        ))}
        {domains.length === 0 && (
          <div className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600">
            <p className="font-medium text-slate-800">No custom domains yet</p>
            <p className="mt-1">
              {canManage
                ? allowed
                  ? "Add a host you control; we show the DNS records to create, then verify them."
                  : "Upgrade the plan to add one."
                : "Owners and admins can add domains."}
            </p>
          </div>
        )}
      </div>
    </>
  );
}
