import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { linkFormContext } from "@/lib/links/views";
import { LinkForm } from "../link-form";

export const metadata: Metadata = { title: "New link" };

export default async function NewLinkPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ folder?: string }>;
}) {
  const { slug } = await params;
  const { folder } = await searchParams;
  const { workspace } = await workspacePage(slug);
  const ctx = await linkFormContext(workspace);
  return (
    <div className="mx-auto max-w-6xl">
      <PageHeader
        title="New link"
        description="Shorten a URL. Only the destination is required."
        actions={
          <Link href={`/w/${slug}/links`} className="text-sm font-medium text-brand-600 hover:underline">
            ← All links
          </Link>
        }
      />
      <LinkForm slug={slug} ctx={ctx} initialFolder={typeof folder === "string" ? folder : ""} />
    </div>
  );
}
