import { z } from "zod";
import { db } from "../db/client.ts";
import type { Prisma } from "../db/generated/client.ts";
import { linkFilters } from "./filters.ts";
import { tagNamesOf } from "./link-tags.ts";
import { customHosts, type LinkWorkspace } from "./lookup.ts";
import { listLinksQuerySchema } from "./schemas.ts";
import { hostOf, linkWithHost, type LinkWithHost } from "./serialize.ts";

// The Links page's list: sorted by created, clicks or last click, in numbered pages of 25, 50 or
// 100, with a count of the matches. Every read is bounded: the count stops at LIST_COUNT_CAP (the
// page says "10,000+"), and a page past the last is answered with the last, so the offset never
// exceeds the cap.
// Each sort is read in the order of an index of "Link" (prisma/migrations/20261127191000_link_list_sorts):
//   created    (workspaceId, createdAt DESC, id DESC)
//   clicks     (workspaceId, clicks DESC, id DESC)
//   last click (workspaceId, lastClickedAt DESC NULLS LAST, id DESC): never-clicked links last
//              when newest first, first when oldest first
// Measured (EXPLAIN on PostgreSQL 18, 200k links over 20 workspaces of 10k): a first page with the
// workspace's condition alone is an Index Scan (Backward for asc) with LIMIT 25 and no Sort node;
// a page near the cap (offset 9,975) is a Bitmap Index Scan of the workspace's rows and a top-N
// sort, bounded by the cap like the offset. A search or folder filter filters those walks. The
// count reads at most cap + 1 rows. The price: the click flush's updates of clicks and
// lastClickedAt now touch these two indexes (no HOT update), once per link per flush. The API's GET /api/v1/links stays newest first with cursors
// (list.ts), as the contract has it.

export const LIST_SORTS = ["created", "clicks", "lastClick"] as const;
export type ListSort = (typeof LIST_SORTS)[number];
export const LIST_PAGE_SIZES = [25, 50, 100] as const;
export const LIST_COUNT_CAP = 10_000;

const pageSize = z.union(LIST_PAGE_SIZES.map((n) => z.literal(n)) as [z.ZodLiteral<25>, z.ZodLiteral<50>, z.ZodLiteral<100>]);

/** The Links page's query: the list's filters, a sort and a numbered page. */
export const linksPageQuerySchema = z.strictObject({
  q: listLinksQuerySchema.shape.q,
  folder: listLinksQuerySchema.shape.folder,
  tag: listLinksQuerySchema.shape.tag,
  sort: z.enum(LIST_SORTS).default("created"),
  order: z.enum(["asc", "desc"]).default("desc"),
  size: pageSize.default(25),
  page: z.number().int("must be a whole number").min(1, "must be 1 or more").max(LIST_COUNT_CAP, "is past the last page").default(1),
});
export type LinksPageQuery = z.output<typeof linksPageQuerySchema>;

export type LinksListPage = {
  links: (LinkWithHost & { tagNames: string[] })[];
  /** matches, counted up to LIST_COUNT_CAP */
  total: number;
  /** true when there are more than LIST_COUNT_CAP matches (total is then the cap) */
  capped: boolean;
  page: number;
  size: number;
};

function orderOf(sort: ListSort, order: "asc" | "desc"): Prisma.LinkOrderByWithRelationInput[] {
  if (sort === "clicks") return [{ clicks: order }, { id: order }];
  if (sort === "lastClick") return [{ lastClickedAt: { sort: order, nulls: order === "desc" ? "last" : "first" } }, { id: order }];
  return [{ createdAt: order }, { id: order }];
}

/** One numbered page of the workspace's links (matching the filters), sorted, with the bounded count. */
export async function listLinksPage(workspace: LinkWorkspace, query: LinksPageQuery, cap = LIST_COUNT_CAP): Promise<LinksListPage> {
  const where: Prisma.LinkWhereInput = { AND: await linkFilters(workspace, query) };
  const rowsOf = (page: number) =>
    db().link.findMany({ where, orderBy: orderOf(query.sort, query.order), skip: (page - 1) * query.size, take: query.size });
  // The count and the asked page are read side by side (one round trip less on every page view),
  // the page no further than the cap's last (so its offset stays within the cap too); a page past
  // the last is then read again, as the last.
  const firstTry = Math.min(query.page, Math.max(1, Math.ceil(cap / query.size)));
  const [counted, asked] = await Promise.all([
    // count(*) over at most cap + 1 rows: Prisma wraps it as a subquery with LIMIT
    db().link.count({ where, take: cap + 1 }),
    rowsOf(firstTry),
  ]);
  const capped = counted > cap;
  const total = Math.min(counted, cap);
  const lastPage = Math.max(1, Math.ceil(total / query.size));
  const page = Math.min(query.page, lastPage);
  const rows = page === firstTry ? asked : await rowsOf(page);
  const [hosts, tags] = await Promise.all([
    customHosts(db(), rows),
    tagNamesOf(
      db(),
      rows.map((l) => l.id),
    ),
  ]);
  const links = rows.map((l) => ({
    ...linkWithHost(l, l.domainId === null ? hostOf(l) : hosts.get(l.domainId)!),
    tagNames: tags.get(l.id) ?? [],
  }));
  return { links, total, capped, page, size: query.size };
}
