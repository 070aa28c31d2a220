import { database, db } from "../db/client.ts";
import type { Link } from "../db/generated/client.ts";
import { linkFilters } from "./filters.ts";
import { tagNamesOf } from "./link-tags.ts";
import { customHosts, type LinkWorkspace } from "./lookup.ts";
import { linkValidation } from "./rules.ts";
import { PAGE_DEFAULT, type ListLinksQuery } from "./schemas.ts";
import { hostOf, linkWithHost, type LinkWithHost } from "./serialize.ts";
import type { LiveKeyRate } from "../ratelimit/index.ts";
import { listLinksPage, listLinksPageCountingRate, type LinkWithDomainAndTags } from "./sql.ts";
import { byTagName } from "../tags/service.ts";

// The link list (GET /api/v1/links and the Links page): pages newest first, and their cursors.

/** The opaque cursor: the last link's creation time (ms) and id, base64url. */
export function encodeCursor(link: Pick<Link, "createdAt" | "id">): string {
  return Buffer.from(`${link.createdAt.getTime()}.${link.id}`).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: Date; id: number } | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return null;
  const m = /^(\d{1,15})\.(\d{1,10})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!m) return null;
  const createdAt = new Date(Number(m[1]));
  const id = Number(m[2]);
  if (Number.isNaN(createdAt.getTime()) || id > 2_147_483_647) return null;
  return { createdAt, id };
}

/**
 * A page of the workspace's links, newest first (createdAt desc, id desc), with keyset pagination:
 * the cursor names the last link seen, so inserts between pages never shift or repeat a page.
 */
export type LinksPage = { links: LinkWithHost[]; nextCursor: string | null };

export async function listLinks(workspace: LinkWorkspace, query: ListLinksQuery): Promise<LinksPage> {
  const size = query.size ?? PAGE_DEFAULT;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (after === null) throw linkValidation([{ path: "cursor", message: "is not a cursor from this API" }]);
  // without filters (the API's usual page): one statement with hosts and tags (sql.ts)
  if (unfiltered(query)) return pageOf(await listLinksPage(database().prismaPool, workspace.id, size, after), size);
  const and = await linkFilters(workspace, query);
  if (after) and.push({ OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] });
  const rows = await db().link.findMany({ where: { AND: and }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: size + 1 });
  const hosts = await customHosts(db(), rows.slice(0, size));
  const tags = await tagNamesOf(
    db(),
    rows.slice(0, size).map((l) => l.id),
  );
  const page = rows
    .slice(0, size)
    .map((l) => ({ ...linkWithHost(l, l.domainId === null ? hostOf(l) : hosts.get(l.domainId)!), tagNames: tags.get(l.id) ?? [] }));
  return { links: page, nextCursor: rows.length > size ? encodeCursor(page[page.length - 1]) : null };
}

const unfiltered = (query: ListLinksQuery) => !query.domain && !query.folder && !query.q && !query.tag?.length;

/** The page of listLinksPage's rows (size + 1 of them when there is a next page). */
function pageOf(rows: LinkWithDomainAndTags[], size: number): LinksPage {
  const page = rows.slice(0, size).map(({ link, customHost, tagNames }) => ({
    ...linkWithHost(link, link.domainId === null ? hostOf(link) : customHost!),
    tagNames: tagNames
      .map((name) => ({ name }))
      .sort(byTagName)
      .map((t) => t.name),
  }));
  return { links: page, nextCursor: rows.length > size ? encodeCursor(page[page.length - 1]) : null };
}

/**
 * listLinks read in the statement that counts the request against its key's rate (the API's list
 * without filters on a plan with a rate: one round trip for both). Null when that query is not
 * one (filters, or a cursor that is not one): the caller counts the request on its own and calls
 * listLinks. Otherwise the count (null: nothing was counted, the key is no longer live) and the
 * page listLinks would have given, to be taken only once the count allows it.
 */
export async function listLinksCountingRate(
  workspace: LinkWorkspace,
  query: ListLinksQuery,
  rate: LiveKeyRate,
): Promise<{ rateCount: number | null; page: () => LinksPage } | null> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (!unfiltered(query) || after === null) return null;
  const size = query.size ?? PAGE_DEFAULT;
  const { rateCount, page } = await listLinksPageCountingRate(database().rateLimit, workspace.id, size, after, rate);
  return { rateCount, page: () => pageOf(page, size) };
}
