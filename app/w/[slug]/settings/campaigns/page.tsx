import type { Metadata } from "next";
import { listUtmTemplates } from "@/lib/links/utm-templates";
import { listTags, tagLinkCounts, TAG_COLORS } from "@/lib/tags";
import { PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { TagsManager, UtmTemplatesManager } from "./managers";

export const metadata: Metadata = { title: "Tags and UTM templates" };

export default async function CampaignSettingsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace } = await workspacePage(slug);
  const [tags, counts, templates] = await Promise.all([listTags(workspace), tagLinkCounts(workspace), listUtmTemplates(workspace)]);
  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <PageHeader
        title="Tags and UTM templates"
        description="Tags label links (filter and export by them); UTM templates fill the link form's UTM fields."
      />
      <TagsManager
        slug={slug}
        colors={[...TAG_COLORS]}
        tags={tags.map((t) => ({ id: t.id, name: t.name, color: t.color, links: counts.get(t.id) ?? 0 }))}
      />
      <UtmTemplatesManager slug={slug} templates={templates} />
    </div>
  );
}
