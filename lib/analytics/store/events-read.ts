import type pg from "pg";
import type { Bucket, ClickQuery, ExportRow, GroupRow, TopGroup, Totals } from "../model.ts";
import { filterWhere, groupColumns, isLinkGroup, LINK_GROUPS, visitorsPerLink, WHERE_ORDER, type LinkGroup } from "./dimensions.ts";
import { readLinkGroupsAll } from "./link-groups.ts";
import { Params } from "./sql-params.ts";
import type { Queryable } from "../../db/queryable.ts";
import type { Interval } from "./plan.ts";

// The raw events (analytics.click_event): one WHERE clause built from the filters of the dimension
// table (store/dimensions.ts), and one named function per kind of answer. Values always travel as
// parameters; only fixed SQL from that table is concatenated.

/** `where ...` for the query over one range (its own, or `range` given instead), with its parameters. */
function whereClause(q: ClickQuery, p: Params, range: Interval = q): string {
  const ws = p.add(q.workspaceId);
  const parts = [`workspace_id = ${ws}`, `at >= ${p.add(range.start)}`, `at < ${p.add(range.end)}`];
  for (const key of WHERE_ORDER) {
    const value = q.filters[key];
    if (value === undefined || value === null) continue;
    const sql = filterWhere(key, value, p, ws);
    if (sql) parts.push(sql);
  }
  return `where ${parts.join(" and ")}`;
}

/**
 * The events a statement reads (what follows its `from`), with its parameters: the query's range,
 * or the `intervals` given instead (the raw parts of a rollup plan, read by one statement:
 * store/plan.ts), each interval a branch of a `union all` with its own range condition. One `or`
 * of the ranges let PostgreSQL walk a filter's links over the whole span between them and drop
 * what fell outside (a tag's 143 links over 30 days: 690 ms, against 20 ms for the ranges alone).
 */
export function eventsFrom(q: ClickQuery, intervals?: readonly Interval[]): { sql: string; params: Params } {
  const p = new Params();
  if (!intervals || intervals.length <= 1) return { sql: `analytics.click_event ${whereClause(q, p, intervals?.[0])}`, params: p };
  const branches = intervals.map((i) => `select * from analytics.click_event ${whereClause(q, p, i)}`);
  return { sql: `(${branches.join(" union all ")}) as click_event`, params: p };
}

// visitors: unique visitor keys; the keys change every UTC day, so over several days this is the
// sum of each day's unique visitors
const MEASURES = `count(*)::int as clicks, count(distinct visitor)::int as visitors`;
// Under a folder or tag filter a visitor counts once per link they clicked (each link's unique
// visitors, summed), as for the tag and UTM groups: that is what the per-link rollups can answer
// for any range, so short and long reports agree.
const PER_LINK_MEASURES = `count(*)::int as clicks, count(distinct (link_id, visitor))::int as visitors`;
const measures = (q: ClickQuery) => (visitorsPerLink(q.filters) ? PER_LINK_MEASURES : MEASURES);

export async function queryTotals(db: Queryable, q: ClickQuery, intervals?: readonly Interval[]): Promise<Totals> {
  const { sql, params } = eventsFrom(q, intervals);
  const { rows } = await db.query<Totals>(`select ${measures(q)} from ${sql}`, params.values);
  return rows[0] ?? { clicks: 0, visitors: 0 };
}

/**
 * Clicks per hour or per day in `timezone` (IANA), every bucket of the range present (zeros
 * included). Day buckets follow the zone's calendar (23 or 25 hours across a DST change); hour
 * buckets are consecutive hours.
 */
export async function queryTimeseries(db: Queryable, q: ClickQuery, unit: "hour" | "day", timezone: string): Promise<Bucket[]> {
  const { sql, params } = eventsFrom(q);
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
       from ${sql} group by 1),
     buckets as (${series})
     select b.bucket as start, coalesce(c.clicks, 0)::int as clicks, coalesce(c.visitors, 0)::int as visitors
     from buckets b left join counts c on c.bucket = b.bucket
     order by b.bucket`,
    params.values,
  );
  return rows;
}

/**
 * Clicks per UTC day over the intervals (the raw parts of a rollup plan), only the days with clicks:
 * what a rollup plan's day series adds to the built days (store/execute.ts).
 */
export async function queryUtcDays(db: Queryable, q: ClickQuery, intervals: readonly Interval[]): Promise<Bucket[]> {
  const { sql, params } = eventsFrom(q, intervals);
  const { rows } = await db.query<Bucket>(
    `select date_trunc('day', at, 'UTC') as start, ${measures(q)} from ${sql} group by 1 order by 1`,
    params.values,
  );
  return rows;
}

/**
 * The totals and the clicks per UTC day over the intervals at once (a grouping set each): what a
 * page's count and day series of one query add to their built days (store/batch-read.ts).
 */
export async function queryTotalsAndUtcDays(
  db: Queryable,
  q: ClickQuery,
  intervals: readonly Interval[],
): Promise<{ totals: Totals; days: Bucket[] }> {
  const { sql, params } = eventsFrom(q, intervals);
  const { rows } = await db.query<Totals & { whole: number; start: Date | null }>(
    `select grouping(e.day) as whole, e.day as start, ${measures(q)}
     from (select date_trunc('day', at, 'UTC') as day, link_id, visitor from ${sql}) e
     group by grouping sets ((), (e.day))`,
    params.values,
  );
  const whole = rows.find((r) => r.whole === 1);
  return {
    totals: whole ? { clicks: whole.clicks, visitors: whole.visitors } : { clicks: 0, visitors: 0 },
    days: rows
      .filter((r) => r.whole === 0)
      .map((r) => ({ start: r.start!, clicks: r.clicks, visitors: r.visitors }))
      .sort((a, b) => a.start.getTime() - b.start.getTime()),
  };
}

/**
 * All groups of each of several top-N groups over the intervals, in one statement (a grouping set
 * per group; link groups, which join the links, are not among them): the raw parts of a page's
 * panels (store/batch-read.ts). In the order of `groups`, unsorted.
 */
export async function queryGroupSets(
  db: Queryable,
  q: ClickQuery,
  groups: readonly TopGroup[],
  intervals: readonly Interval[],
): Promise<GroupRow[][]> {
  const { sql, params } = eventsFrom(q, intervals);
  const sets = groups.map((g) => {
    if (isLinkGroup(g)) throw new Error(`${g} has no grouping set`);
    return groupColumns(g);
  });
  const columns = [...new Set(sets.flat())];
  // grouping(columns): bit (n - 1 - i) is set when columns[i] is not in the row's set
  const maskOf = (set: readonly string[]) => columns.reduce((m, c, i) => (set.includes(c) ? m : m | (1 << (columns.length - 1 - i))), 0);
  const { rows } = await db.query<Record<string, unknown> & Totals & { set: number }>(
    `select grouping(${columns.join(", ")}) as set, ${columns.map((c, i) => `${c} as c${i}`).join(", ")}, ${measures(q)}
     from ${sql}
     group by grouping sets (${[...new Set(sets.map((s) => `(${s.join(", ")})`))].join(", ")})`,
    params.values,
  );
  return sets.map((set) => {
    const mask = maskOf(set);
    return rows
      .filter((r) => r.set === mask)
      .map((r) => ({
        key: set.map((c) => r[`c${columns.indexOf(c)}`] as string | number | boolean | null),
        clicks: r.clicks,
        visitors: r.visitors,
      }));
  });
}

/** All groups of several link groups (tags, UTM values) over the intervals, in one statement: in the order of `groups`, unsorted. */
export async function queryLinkGroupsAll(
  db: Queryable,
  q: ClickQuery,
  groups: readonly LinkGroup[],
  intervals: readonly Interval[],
): Promise<GroupRow[][]> {
  const { sql, params } = eventsFrom(q, intervals);
  return readLinkGroupsAll(db, [...groups], `select link_id, ${MEASURES} from ${sql} group by link_id`, params.values);
}

/** The `limit` largest groups, most clicks first (then most visitors, then by key); over `intervals` when given. */
export async function queryTopGroups(
  db: Queryable,
  q: ClickQuery,
  group: TopGroup,
  limit: number,
  intervals?: readonly Interval[],
): Promise<GroupRow[]> {
  const { sql, params } = eventsFrom(q, intervals);
  const cols = groupColumns(group);
  const keys = cols.map((c, i) => `${c} as k${i}`).join(", ");
  const order = cols.map((c) => `${c} nulls last`).join(", ");
  const text = isLinkGroup(group)
    ? `with per_link as (select link_id, ${MEASURES} from ${sql} group by link_id)
       select ${keys}, sum(e.clicks)::int as clicks, sum(e.visitors)::int as visitors from per_link e ${LINK_GROUPS[group].join("e")}
       group by ${cols.join(", ")} order by clicks desc, visitors desc, ${order} limit ${params.add(limit)}`
    : `select ${keys}, ${measures(q)} from ${sql}
       group by ${cols.join(", ")} order by clicks desc, visitors desc, ${order} limit ${params.add(limit)}`;
  const { rows } = await db.query<Record<string, unknown> & Totals>(text, params.values);
  return rows.map((r) => ({
    key: cols.map((_, i) => r[`k${i}`] as string | number | boolean | null),
    clicks: r.clicks,
    visitors: r.visitors,
  }));
}

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
  destination: true,
  language: true,
};
const EXPORT_COLUMNS = Object.keys(EXPORT_ROW_KEYS);

/** The raw events of the query, oldest first, in pages of `pageSize` through a cursor (bounded memory). */
export async function* streamEvents(pool: pg.Pool, q: ClickQuery, pageSize = 2000): AsyncGenerator<ExportRow[]> {
  const { sql, params } = eventsFrom(q);
  const client = await pool.connect();
  let open = false;
  try {
    await client.query("begin read only");
    open = true;
    await client.query(
      `declare click_export no scroll cursor for
      select ${EXPORT_COLUMNS.join(", ")} from ${sql} order by at`,
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
