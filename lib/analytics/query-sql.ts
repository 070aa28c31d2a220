import type pg from "pg";
import type { Queryable } from "./sql.ts";

// The read side of the PostgreSQL click store: one WHERE clause built from a table of filters (add a
// filter by adding an entry to FILTERS), and one named function per kind of answer. Values always
// travel as parameters; only fixed SQL from the tables below is concatenated.

export const TOP_GROUPS = [
  "countries",
  "cities",
  "referrers",
  "devices",
  "browsers",
  "os",
  "links",
  "qr",
  "tags",
  "utm_source",
  "utm_medium",
  "utm_campaign",
] as const;
export type TopGroup = (typeof TOP_GROUPS)[number];
export const BOT_MODES = ["exclude", "include", "only"] as const;
export type BotMode = (typeof BOT_MODES)[number];
/** "(direct)" in a referrer filter selects the visits that came without a referrer */
export const DIRECT = "(direct)";

export type ClickFilters = {
  /** one link (already resolved to its id and checked to belong to the workspace) */
  linkId?: number;
  /** a folder path and its subfolders */
  folder?: string;
  /** tag keys (lower-cased names): links with any of these tags (their tags now, not when clicked) */
  tags?: string[];
  country?: string;
  city?: string;
  device?: string;
  browser?: string;
  os?: string;
  referrer?: string;
  qr?: boolean;
  bots: BotMode;
};

export type ClickQuery = {
  workspaceId: number;
  /** inclusive start and exclusive end */
  start: Date;
  end: Date;
  filters: ClickFilters;
};

export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

type FilterSql<V> = (value: V, p: Params, workspace: string) => string | null;
const likePrefix = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`) + "/%";

/** The filters that select a set of links (by what the links are now). */
export type LinkSetKey = "linkId" | "folder" | "tags";
/** Each link-set filter as a query of the ids of its links. */
export const LINK_SETS: { [K in LinkSetKey]: (value: NonNullable<ClickFilters[K]>, p: Params, workspace: string) => string } = {
  linkId: (v, p, ws) => `select id from "Link" where id = ${p.add(v)} and "workspaceId" = ${ws}`,
  folder: (v, p, ws) =>
    `select id from "Link" where "workspaceId" = ${ws} and (folder = ${p.add(v)} or folder like ${p.add(likePrefix(v))})`,
  tags: (v, p, ws) =>
    `select lt."linkId" from "LinkTag" lt join "Tag" t on t.id = lt."tagId" where t."workspaceId" = ${ws} and t."nameKey" = any(${p.add(v)}::text[])`,
};

const FILTERS: { [K in keyof ClickFilters]-?: FilterSql<NonNullable<ClickFilters[K]>> } = {
  linkId: (v, p) => `link_id = ${p.add(v)}`,
  folder: (v, p, ws) => `link_id in (${LINK_SETS.folder(v, p, ws)})`,
  tags: (v, p, ws) => `link_id in (${LINK_SETS.tags(v, p, ws)})`,
  country: (v, p) => `country = ${p.add(v.toUpperCase())}`,
  city: (v, p) => `lower(city) = lower(${p.add(v)})`,
  device: (v, p) => `device = ${p.add(v)}`,
  browser: (v, p) => `lower(browser) = lower(${p.add(v)})`,
  os: (v, p) => `lower(os) = lower(${p.add(v)})`,
  referrer: (v, p) => (v === DIRECT ? `referrer_host is null` : `referrer_host = ${p.add(v.toLowerCase())}`),
  qr: (v, p) => `qr = ${p.add(v)}`,
  bots: (v) => (v === "exclude" ? "not bot" : v === "only" ? "bot" : null),
};

/** `where ...` for the query, with its parameters. */
export function whereClause(q: ClickQuery, p = new Params()): { sql: string; params: Params } {
  const ws = p.add(q.workspaceId);
  const parts = [`workspace_id = ${ws}`, `at >= ${p.add(q.start)}`, `at < ${p.add(q.end)}`];
  for (const key of Object.keys(FILTERS) as (keyof ClickFilters)[]) {
    const value = q.filters[key];
    if (value === undefined || value === null) continue;
    const sql = (FILTERS[key] as FilterSql<unknown>)(value, p, ws);
    if (sql) parts.push(sql);
  }
  return { sql: `where ${parts.join(" and ")}`, params: p };
}

// visitors: unique visitor keys; the keys change every UTC day, so over several days this is the
// sum of each day's unique visitors
const MEASURES = `count(*)::int as clicks, count(distinct visitor)::int as visitors`;
// Under a folder or tag filter a visitor counts once per link they clicked (each link's unique
// visitors, summed), as for the tag and UTM groups: that is what the per-link rollups can answer
// for any range, so short and long reports agree.
const PER_LINK_MEASURES = `count(*)::int as clicks, count(distinct (link_id, visitor))::int as visitors`;
/** Whether the query's visitors are counted per link (a folder or tag filter). */
const visitorsPerLink = (f: ClickFilters) => f.folder !== undefined || (f.tags?.length ?? 0) > 0;
const measures = (q: ClickQuery) => (visitorsPerLink(q.filters) ? PER_LINK_MEASURES : MEASURES);

export type Totals = { clicks: number; visitors: number };

export async function queryTotals(db: Queryable, q: ClickQuery): Promise<Totals> {
  const { sql, params } = whereClause(q);
  const { rows } = await db.query<Totals>(`select ${measures(q)} from analytics.click_event ${sql}`, params.values);
  return rows[0] ?? { clicks: 0, visitors: 0 };
}

export type Bucket = { start: Date; clicks: number; visitors: number };

/**
 * Clicks per hour or per day in `timezone` (IANA), every bucket of the range present (zeros
 * included). Day buckets follow the zone's calendar (23 or 25 hours across a DST change); hour
 * buckets are consecutive hours.
 */
export async function queryTimeseries(db: Queryable, q: ClickQuery, unit: "hour" | "day", timezone: string): Promise<Bucket[]> {
  const { sql, params } = whereClause(q);
  const tz = params.add(timezone);
  const start = params.add(q.start);
  const last = params.add(new Date(q.end.getTime() - 1));
  const series =
    unit === "hour"
      ? `select generate_series(date_trunc('hour', ${start}::timestamptz, ${tz}), ${last}::timestamptz, interval '1 hour') as bucket`
      : `select (g at time zone ${tz}) as bucket from generate_series(
           date_trunc('day', ${start}::timestamptz, ${tz}) at time zone ${tz},
           ${last}::timestamptz at time zone ${tz}, interval '1 day') as g`;
  const { rows } = await db.query<Bucket>(
    `with counts as (
       select date_trunc('${unit}', at, ${tz}) as bucket, ${measures(q)}
       from analytics.click_event ${sql} group by 1),
     buckets as (${series})
     select b.bucket as start, coalesce(c.clicks, 0)::int as clicks, coalesce(c.visitors, 0)::int as visitors
     from buckets b left join counts c on c.bucket = b.bucket
     order by b.bucket`,
    params.values,
  );
  return rows;
}

/** The value of a UTM parameter in a link's current URL (query part only), still percent-encoded. */
export const utmColumn = (name: string) => `substring(split_part(l.url, '#', 1) from '[?&]${name}=([^&]*)')`;

// Groups read from the links as they are now: a click on a link with two tags counts for both; a
// deleted link's clicks have no tag and no UTM value. Their visitors are each link's unique
// visitors, summed (as the daily rollups keep them per link).
const BY_LINK: Partial<Record<TopGroup, string>> = {
  tags: `per_link e join "LinkTag" lt on lt."linkId" = e.link_id join "Tag" t on t.id = lt."tagId"`,
  utm_source: `per_link e left join "Link" l on l.id = e.link_id`,
  utm_medium: `per_link e left join "Link" l on l.id = e.link_id`,
  utm_campaign: `per_link e left join "Link" l on l.id = e.link_id`,
};

// the stored columns each top-N answer is grouped by
const GROUP_COLUMNS: Record<TopGroup, string[]> = {
  countries: ["country"],
  cities: ["city", "country"],
  referrers: ["referrer_host"],
  devices: ["device"],
  browsers: ["browser"],
  os: ["os"],
  links: ["link_id"],
  qr: ["qr"],
  tags: ["t.name", "t.color"],
  utm_source: [utmColumn("utm_source")],
  utm_medium: [utmColumn("utm_medium")],
  utm_campaign: [utmColumn("utm_campaign")],
};

export type GroupRow = Totals & { key: (string | number | boolean | null)[] };

/** The `limit` largest groups, most clicks first (then most visitors, then by key). */
export async function queryTopGroups(db: Queryable, q: ClickQuery, group: TopGroup, limit: number): Promise<GroupRow[]> {
  const { sql, params } = whereClause(q);
  const cols = GROUP_COLUMNS[group];
  const keys = cols.map((c, i) => `${c} as k${i}`).join(", ");
  const order = cols.map((c) => `${c} nulls last`).join(", ");
  const byLink = BY_LINK[group];
  const text = byLink
    ? `with per_link as (select link_id, ${MEASURES} from analytics.click_event ${sql} group by link_id)
       select ${keys}, sum(e.clicks)::int as clicks, sum(e.visitors)::int as visitors from ${byLink}
       group by ${cols.join(", ")} order by clicks desc, visitors desc, ${order} limit ${params.add(limit)}`
    : `select ${keys}, ${measures(q)} from analytics.click_event ${sql}
       group by ${cols.join(", ")} order by clicks desc, visitors desc, ${order} limit ${params.add(limit)}`;
  const { rows } = await db.query<Record<string, unknown> & Totals>(text, params.values);
  return rows.map((r) => ({
    key: cols.map((_, i) => r[`k${i}`] as string | number | boolean | null),
    clicks: r.clicks,
    visitors: r.visitors,
  }));
}

/** A raw event as the export reads it (everything but the visitor key). */
export type ExportRow = {
  at: Date;
  link_id: number;
  domain: string;
  target: string;
  country: string | null;
  city: string | null;
  referrer_host: string | null;
  referrer_url: string | null;
  device: string;
  browser: string | null;
  os: string | null;
  bot: boolean;
  qr: boolean;
};

// every key of ExportRow, once (the compiler checks both ways)
const EXPORT_ROW_KEYS: { [K in keyof ExportRow]: true } = {
  at: true,
  link_id: true,
  domain: true,
  target: true,
  country: true,
  city: true,
  referrer_host: true,
  referrer_url: true,
  device: true,
  browser: true,
  os: true,
  bot: true,
  qr: true,
};
const EXPORT_COLUMNS = Object.keys(EXPORT_ROW_KEYS);

/** The raw events of the query, oldest first, in pages of `pageSize` through a cursor (bounded memory). */
export async function* streamEvents(pool: pg.Pool, q: ClickQuery, pageSize = 2000): AsyncGenerator<ExportRow[]> {
  const { sql, params } = whereClause(q);
  const client = await pool.connect();
  let open = false;
  try {
    await client.query("begin read only");
    open = true;
    await client.query(
      `declare click_export no scroll cursor for
      select ${EXPORT_COLUMNS.join(", ")} from analytics.click_event ${sql} order by at`,
      params.values,
    );
    for (;;) {
      const { rows } = await client.query<ExportRow>(`fetch forward ${Math.max(1, Math.floor(pageSize))} from click_export`);
      if (!rows.length) break;
      yield rows;
    }
    await client.query("commit");
    open = false;
  } finally {
    if (open) await client.query("rollback").catch(() => {});
    client.release();
  }
}
