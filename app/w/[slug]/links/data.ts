import { db } from "@/lib/db/client";
import { hasFeature, planOf } from "@/lib/plans";
import { tagNamesOf, toApiLink, type ApiLink } from "@/lib/links";
import { config } from "@/lib/config";
import { usableDomains } from "@/lib/domains";
import { listUtmTemplates } from "@/lib/links/utm-templates";
import { listTags } from "@/lib/tags";

// Reads for the links pages that are not link rules (folder tree, one link by id, clicks per day).
// Every write goes through lib/links.

/** What the link forms may offer: the plan's features and the domains links can live on. */
export async function linkFormContext(workspace: { id: number; plan: string }) {
  const plan = planOf(workspace.plan);
  const [domains, folders, tags, utmTemplates] = await Promise.all([usableDomains(workspace.id), folderCounts(workspace.id), listTags(workspace), listUtmTemplates(workspace)]);
  return {
    features: {
      aliases: hasFeature(plan, "CustomAliases"),
      expiry: hasFeature(plan, "LinkExpiry"),
      passwords: hasFeature(plan, "LinkPasswords"),
      domains: hasFeature(plan, "CustomDomains"),
      bulk: hasFeature(plan, "BulkLinks"),
    },
    defaultHost: config().shortDomain,
    domains: domains.map((d) => d.host),
    folders: folders.map((f) => f.folder).filter(Boolean),
    tags: tags.map((t) => t.name),
    utmTemplates,
  };
}
export type LinkFormContext = Awaited<ReturnType<typeof linkFormContext>>;

export async function folderCounts(workspaceId: number): Promise<{ folder: string; count: number }[]> {
  const rows = await db().link.groupBy({ by: ["folder"], where: { workspaceId }, _count: { _all: true }, orderBy: { folder: "asc" } });
  return rows.map((r) => ({ folder: r.folder, count: r._count._all }));
}

export type LinkDetail = ApiLink & { targeting: { ios?: string; android?: string; geo?: Record<string, string> } | null };

/** One link of the workspace by id, as the API shows it plus its targeting; null when not ours. */
export async function linkById(workspaceId: number, id: number): Promise<LinkDetail | null> {
  if (!Number.isInteger(id) || id <= 0 || id > 2_147_483_647) return null;
  const link = await db().link.findFirst({ where: { id, workspaceId }, include: { domain: { select: { host: true } } } });
  if (!link) return null;
  const host = link.domainId === null ? config().shortDomain : link.domain!.host;
  const tagNames = (await tagNamesOf(db(), [link.id])).get(link.id) ?? [];
  return { ...toApiLink({ ...link, tagNames }, host), targeting: (link.targeting as LinkDetail["targeting"]) ?? null };
}
