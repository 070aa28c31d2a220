import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { parseIdParam } from "@/lib/http/params";
import { PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { linkById, linkFormContext } from "@/lib/links/views";
import { LinkForm } from "../../link-form";

export const metadata: Metadata = { title: "Edit link" };

export default async function EditLinkPage({ params }: { params: Promise<{ slug: string; id: string }> }) {
  const { slug, id } = await params;
  const { workspace } = await workspacePage(slug);
  const link = await linkById(workspace.id, parseIdParam(id) ?? 0);
  if (!link) notFound();
  const ctx = await linkFormContext(workspace);
  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader
        title="Edit link"
        description={link.short}
        actions={
          <Link href={`/w/${slug}/links/${link.id}`} className="text-sm font-medium text-brand-600 hover:underline">
            ← Back to the link
          </Link>
        }
      />
      <LinkForm slug={slug} ctx={ctx} link={link} />
    </div>
  );
}
