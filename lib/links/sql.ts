import type { Link } from "../db/generated/client.ts";
import { liveKeyRateCte, liveKeyRateValues, type LiveKeyRate } from "../ratelimit/index.ts";
import type { Queryable } from "../db/queryable.ts";

// The link statements of the API's hot reads, through `pg` with named (prepared) statements instead
// of Prisma: get-link is one statement (the link or links with that code, the custom domain's host
// and the tag names) instead of two or three Prisma queries, each of which costs more CPU in the
// client than PostgreSQL spends answering it (measured by `npm run bench:api`).

/** Every column of Link, as the Prisma model names them (no @map: the columns have these names). */
const LINK_COLUMNS = [
  "id",
  "workspaceId",
  "domainId",
  "domainKey",
  "code",
  "url",
  "title",
  "notes",
  "folder",
  "active",
  "startsOn",
  "expiresOn",
  "maxClicks",
  "fallbackUrl",
  "passwordHash",
  "targeting",
  "routing",
  "clicks",
  "lastClickedAt",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof Link)[];

/** The Link columns of `l`, for a select or a RETURNING. */
export const SELECT_LINK = LINK_COLUMNS.map((c) => `l."${c}"`).join(", ");

/** A link with the host of its custom domain (null on the default domain) and its tag names, unsorted. */
export type LinkWithDomainAndTags = { link: Link; customHost: string | null; tagNames: string[] };

type Row = Link & { customHost: string | null; tagNames: string[] };

const BY_CODE = `
  select ${SELECT_LINK}, d."host" as "customHost",
    coalesce((select array_agg(t."name") from "LinkTag" lt join "Tag" t on t."id" = lt."tagId" where lt."linkId" = l."id"), '{}') as "tagNames"
  from "Link" l left join "Domain" d on d."id" = l."domainId"
  where l."workspaceId" = $1 and l."code" = $2`;

/**
 * The workspace's links with this code, on the domain of `domainKey` (at most one) or, with null,
 * on any of its domains, in domain key order.
 */
export async function findLinksByCode(
  q: Queryable,
  workspaceId: number,
  code: string,
  domainKey: number | null,
): Promise<LinkWithDomainAndTags[]> {
  const { rows } =
    domainKey === null
      ? await q.query<Row>({ name: "links_by_code", text: `${BY_CODE} order by l."domainKey"`, values: [workspaceId, code] })
      : await q.query<Row>({
          name: "links_by_code_on_domain",
          text: `${BY_CODE} and l."domainKey" = $3`,
          values: [workspaceId, code, domainKey],
        });
  return rows.map(({ customHost, tagNames, ...link }) => ({ link, customHost, tagNames }));
}

const BY_CODE_COUNTING_RATE = `
  with ${liveKeyRateCte(2)}, found as (${BY_CODE})
  select found.*, (select "count" from rate) as "rateCount" from (select 1) as one left join found on true
  order by found."domainKey"`;

/**
 * findLinksByCode on any of the workspace's domains and the request's rate count (lib/ratelimit liveKeyRateCte) in ONE statement, on
 * the rate limiter's pool: the API's get-link on a plan with a rate. `rateCount` is null when
 * nothing was counted (the key is no longer live); the links are then not to be used.
 */
export async function findLinksByCodeCountingRate(
  q: Queryable,
  workspaceId: number,
  code: string,
  rate: LiveKeyRate,
): Promise<{ found: LinkWithDomainAndTags[]; rateCount: number | null }> {
  const { rows } = await q.query<Partial<Row> & { rateCount: number | null }>({
    name: "links_by_code_counting_rate",
    text: BY_CODE_COUNTING_RATE,
    values: [workspaceId, code, ...liveKeyRateValues(rate)],
  });
  return { rateCount: rows[0].rateCount, found: linksOf(rows) };
}

/** The columns a create sets (the others take their defaults). */
export type NewLinkColumns = {
  workspaceId: number;
  domainId: number | null;
  domainKey: number;
  code: string;
  url: string;
  title: string;
  notes: string | null;
  folder: string;
  active: boolean;
  startsOn: Date | null;
  expiresOn: Date | null;
  maxClicks: number | null;
  fallbackUrl: string | null;
  passwordHash: string | null;
  targeting: unknown;
  /** canonical routing settings (lib/links/routing-schema.ts), null when none */
  routing: unknown;
};

/** Of `hosts`, those that are a verified custom domain of any workspace (a destination there would be a short link). */
export async function verifiedDomainHosts(q: Queryable, hosts: string[]): Promise<string[]> {
  const { rows } = await q.query<{ host: string }>({
    name: "links_verified_domain_hosts",
    text: `select "host" from "Domain" where "host" = any($1::text[]) and "verifiedAt" is not null`,
    values: [hosts],
  });
  return rows.map((r) => r.host);
}

const PAGE_SELECT = `
  select ${SELECT_LINK}, d."host" as "customHost",
    coalesce((select array_agg(t."name") from "LinkTag" lt join "Tag" t on t."id" = lt."tagId" where lt."linkId" = l."id"), '{}') as "tagNames"
  from "Link" l left join "Domain" d on d."id" = l."domainId"
  where l."workspaceId" = $1`;
const PAGE_ORDER = `order by l."createdAt" desc, l."id" desc limit $2`;
const PAGE_FIRST = `${PAGE_SELECT} ${PAGE_ORDER}`;
const PAGE_AFTER = `${PAGE_SELECT} and (l."createdAt", l."id") < ($3::timestamptz, $4::int) ${PAGE_ORDER}`;

/**
 * A page of the workspace's links, newest first (createdAt desc, id desc), after the cursor's link
 * when given: `size` + 1 rows (the extra one tells whether there is a next page), each with its
 * custom domain's host and tag names. The list without filters (list.ts); filtered lists use Prisma.
 */
export async function listLinksPage(
  q: Queryable,
  workspaceId: number,
  size: number,
  after: { createdAt: Date; id: number } | undefined,
): Promise<LinkWithDomainAndTags[]> {
  const { rows } = after
    ? await q.query<Row>({ name: "links_page_after", text: PAGE_AFTER, values: [workspaceId, size + 1, after.createdAt, after.id] })
    : await q.query<Row>({ name: "links_page_first", text: PAGE_FIRST, values: [workspaceId, size + 1] });
  return rows.map(({ customHost, tagNames, ...link }) => ({ link, customHost, tagNames }));
}

const countingRate = (page: string, before: number) => `
  with ${liveKeyRateCte(before)}, page as (${page})
  select page.*, (select "count" from rate) as "rateCount" from (select 1) as one left join page on true
  order by page."createdAt" desc, page."id" desc`;
const PAGE_FIRST_COUNTING_RATE = countingRate(PAGE_FIRST, 2);
const PAGE_AFTER_COUNTING_RATE = countingRate(PAGE_AFTER, 4);

/**
 * listLinksPage and the request's rate count (lib/ratelimit liveKeyRateCte) in ONE statement, on the
 * rate limiter's pool: the API's unfiltered list on a plan with a rate. `rateCount` is null when
 * nothing was counted (the key is no longer live); the page is then not to be used.
 */
export async function listLinksPageCountingRate(
  q: Queryable,
  workspaceId: number,
  size: number,
  after: { createdAt: Date; id: number } | undefined,
  rate: LiveKeyRate,
): Promise<{ page: LinkWithDomainAndTags[]; rateCount: number | null }> {
  const { rows } = after
    ? await q.query<Partial<Row> & { rateCount: number | null }>({
        name: "links_page_after_counting_rate",
        text: PAGE_AFTER_COUNTING_RATE,
        values: [workspaceId, size + 1, after.createdAt, after.id, ...liveKeyRateValues(rate)],
      })
    : await q.query<Partial<Row> & { rateCount: number | null }>({
        name: "links_page_first_counting_rate",
        text: PAGE_FIRST_COUNTING_RATE,
        values: [workspaceId, size + 1, ...liveKeyRateValues(rate)],
      });
  return { rateCount: rows[0].rateCount, page: linksOf(rows) };
}

/** The links of a statement that also answered the rate count (left-joined: no link is one row of nulls). */
function linksOf(rows: (Partial<Row> & { rateCount: number | null })[]): LinkWithDomainAndTags[] {
  return rows
    .filter((r) => r.id != null)
    .map(({ customHost, tagNames, rateCount: _, ...link }) => ({ link: link as Link, customHost: customHost!, tagNames: tagNames! }));
}
