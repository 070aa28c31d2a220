import { z } from "zod";
import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { isId } from "../ids.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import { listTags } from "../tags/index.ts";
import { usableDomains } from "./link-domain.ts";
import { tagNamesOf } from "./link-tags.ts";
import { linksPageQuerySchema, type LinksPageQuery } from "./list-page.ts";
import { listLinksQuerySchema } from "./schemas.ts";
import { hostOf, toApiLink, type ApiLink } from "./serialize.ts";
import { listUtmTemplates } from "./utm-templates.ts";

// Reads for the app's links pages that are not link rules (what the forms offer, the folder tree,
// one link by id). Every write goes through the link service.

/** What the link forms may offer: the plan's features and the domains links can live on. */
export async function linkFormContext(workspace: { id: number; plan: string }) {
  const plan = planOf(workspace.plan);
  const [domains, folders, tags, utmTemplates] = await Promise.all([
    usableDomains(workspace.id),
    folderCounts(workspace.id),
    listTags(workspace),
    listUtmTemplates(workspace),
  ]);
  return {
    features: {
      aliases: hasFeature(plan, "CustomAliases"),
      expiry: hasFeature(plan, "LinkExpiry"),
      passwords: hasFeature(plan, "LinkPasswords"),
      domains: hasFeature(plan, "CustomDomains"),
      bulk: hasFeature(plan, "BulkLinks"),
      // the routing fields (lib/links/routing.ts routingFeatures): forwardPath and rules, variants, preview
      redirectRules: hasFeature(plan, "RedirectRules"),
      abTesting: hasFeature(plan, "ABTesting"),
      previews: hasFeature(plan, "LinkPreviews"),
    },
    defaultHost: config().shortDomain,
    /** the short URL's scheme ("https:"), for the forms' live QR preview (serialize.ts shortUrl) */
    shortScheme: new URL(config().APP_URL).protocol,
    domains: domains.map((d) => d.host),
    folders: folders.map((f) => f.folder).filter(Boolean),
    tags: tags.map((t) => t.name),
    /** the tags with their colours, for the tag combobox */
    tagOptions: tags.map((t) => ({ name: t.name, color: t.color })),
    utmTemplates,
  };
}
export type LinkFormContext = Awaited<ReturnType<typeof linkFormContext>>;

export async function folderCounts(workspaceId: number): Promise<{ folder: string; count: number }[]> {
  const rows = await db().link.groupBy({ by: ["folder"], where: { workspaceId }, _count: { _all: true }, orderBy: { folder: "asc" } });
  return rows.map((r) => ({ folder: r.folder, count: r._count._all }));
}

export type LinkDetail = ApiLink;

/** One link of the workspace by id, as the API shows it (targeting and routing fields included); null when not ours. */
export async function linkById(workspaceId: number, id: number): Promise<LinkDetail | null> {
  if (!isId(id)) return null;
  const link = await db().link.findFirst({ where: { id, workspaceId }, include: { domain: { select: { host: true } } } });
  if (!link) return null;
  const host = hostOf(link);
  const tagNames = (await tagNamesOf(db(), [link.id])).get(link.id) ?? [];
  return toApiLink({ ...link, tagNames }, host);
}

const firstValue = (v: unknown) => (Array.isArray(v) ? v[0] : v);

/**
 * The Links page's filters from its URL (q, folder, one tag), checked by the list's own field
 * rules; a value the list would refuse is dropped, so the page shows everything instead of failing.
 */
const linksPageFilters = z.object({
  q: z.preprocess(firstValue, listLinksQuerySchema.shape.q).catch(undefined),
  folder: z.preprocess(firstValue, listLinksQuerySchema.shape.folder).catch(undefined),
  tag: z
    .preprocess((v) => {
      const t = firstValue(v);
      return typeof t === "string" ? [t] : undefined;
    }, listLinksQuerySchema.shape.tag)
    .catch(undefined),
});

export type LinksPageFilters = { q: string; folder: string; tag: string };

export function parseLinksPageFilters(searchParams: Record<string, unknown>): LinksPageFilters {
  const f = linksPageFilters.parse(searchParams);
  return { q: f.q ?? "", folder: f.folder ?? "", tag: f.tag?.[0] ?? "" };
}

const number = (v: unknown) => (typeof firstValue(v) === "string" && /^\d{1,6}$/.test(firstValue(v) as string) ? Number(firstValue(v)) : v);
const shape = linksPageQuerySchema.shape;
/** The Links page's sort and page from its URL (?sort=clicks&order=desc&page=2&size=50); a bad value is its default. */
const linksPageView = z.object({
  sort: z.preprocess(firstValue, shape.sort).catch("created"),
  order: z.preprocess(firstValue, shape.order).catch("desc"),
  page: z.preprocess(number, shape.page).catch(1),
  size: z.preprocess(number, shape.size).catch(25),
});
export type LinksPageView = Pick<LinksPageQuery, "sort" | "order" | "page" | "size">;

export function parseLinksPageView(searchParams: Record<string, unknown>): LinksPageView {
  return linksPageView.parse(searchParams);
}
