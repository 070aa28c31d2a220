import { LINK_SETS, Params } from "./query-sql.ts";
import { CASELESS_FILTERS, type LinkDim } from "./rollup-dims.ts";
import { linkRowsSql, readLinkGroups, type LinkGroupRow, type LinkGrouping } from "./rollup-link-sql.ts";
import type { LinkSetFilter, RollupRow } from "./rollup-sql.ts";
import type { Queryable } from "./sql.ts";

// Reports under one link, folder or tag filter, read from the per-link rows of the built days
// (analytics.click_day_link). Visitors are each link's unique visitors, summed (the raw queries
// count them the same way: lib/analytics/query-sql.ts).

type Bots = "exclude" | "include" | "only";

// The links of the filter (what they are now), looked up first: the planner then knows how few
// they are and searches the index once per link (with a subquery it guessed and scanned whole days).
async function linkIds(db: Queryable, workspaceId: number, f: LinkSetFilter): Promise<number[]> {
  const p = new Params();
  const sql = (LINK_SETS[f.links] as (v: unknown, p: Params, ws: string) => string)(f.value, p, p.add(workspaceId));
  const { rows } = await db.query<{ ids: number[] | null }>(`select array_agg(id) as ids from (${sql}) as s(id)`, p.values);
  return rows[0]?.ids ?? [];
}

/** The select of the links' rows of one dimension over the days (`cols` of them), with its parameters. */
function rowsOfLinks(workspaceId: number, days: number[], bots: Bots, ids: number[], dim: LinkDim, cols: string) {
  const p = new Params();
  const sql = linkRowsSql(p, workspaceId, days, bots, dim, `and link_id = any(${p.add(ids)}::int[])`, cols);
  return { sql, values: p.values };
}

/** rowsOfLinks for the filter's links; null when there is nothing to read (no days, or no links). */
async function linkSetRows(db: Queryable, workspaceId: number, days: number[], bots: Bots, f: LinkSetFilter, dim: LinkDim, cols: string) {
  if (!days.length) return null;
  const ids = await linkIds(db, workspaceId, f);
  return ids.length ? rowsOfLinks(workspaceId, days, bots, ids, dim, cols) : null;
}

// Totals read the device rows: the visitor key is made from the User-Agent the device comes from,
// so a visitor has one device a day and the device rows' visitors add up to the link's.
const TOTAL_DIM: LinkDim = "device";

/** Clicks and visitors of the links over the built days: in all (perDay false) or per day. */
export async function readLinkSetTotals(
  db: Queryable,
  workspaceId: number,
  days: number[],
  bots: Bots,
  f: LinkSetFilter,
  perDay: boolean,
): Promise<RollupRow[]> {
  const rows = await linkSetRows(db, workspaceId, days, bots, f, TOTAL_DIM, "day, clicks, visitors");
  if (!rows) return [];
  const { rows: out } = await db.query<RollupRow>(
    `select ${perDay ? "(day - date '1970-01-01')::int" : "0"} as day, '' as value, sum(clicks)::int as clicks, sum(visitors)::int as visitors
     from (${rows.sql}) r group by 1`,
    rows.values,
  );
  return out;
}

/** The links' figures per value of one dimension, the value as the rollups keep it. */
async function readValues(db: Queryable, workspaceId: number, days: number[], bots: Bots, ids: number[], dim: LinkDim) {
  const rows = rowsOfLinks(workspaceId, days, bots, ids, dim, "fvalue, clicks, visitors");
  const { rows: out } = await db.query<{ value: string; clicks: number; visitors: number }>(
    `select fvalue as value, sum(clicks)::int as clicks, sum(visitors)::int as visitors from (${rows.sql}) r group by fvalue`,
    rows.values,
  );
  return out;
}

/**
 * The links' figures per value of a dimension (cities: city, tab, country), over the built days.
 * Browser and OS names come back as the events spell them.
 */
export async function readLinkSetValues(
  db: Queryable,
  workspaceId: number,
  days: number[],
  bots: Bots,
  f: LinkSetFilter,
  dim: LinkDim,
): Promise<{ value: string; clicks: number; visitors: number }[]> {
  if (!days.length) return [];
  const ids = await linkIds(db, workspaceId, f);
  if (!ids.length) return [];
  if (dim === "city") {
    const [cities, countries] = await Promise.all([
      readValues(db, workspaceId, days, bots, ids, "city"),
      readValues(db, workspaceId, days, bots, ids, "country"),
    ]);
    return [...cities, ...withoutCity(cities, countries)];
  }
  const rows = await readValues(db, workspaceId, days, bots, ids, dim);
  if (!(CASELESS_FILTERS as LinkDim[]).includes(dim)) return rows;
  const names = await spelledNames(db, workspaceId, days, dim);
  return rows.map((r) => ({ ...r, value: names.get(r.value) ?? r.value }));
}

// Per country, the clicks without a city: the country's rows less its cities' (a visitor's address
// has one place, so visitors subtract as clicks do).
function withoutCity(cities: { value: string; clicks: number; visitors: number }[], countries: typeof cities): typeof cities {
  const rest = new Map(countries.map((c) => [c.value, { ...c, value: `\t${c.value}` }]));
  for (const c of cities) {
    const r = rest.get(c.value.slice(c.value.indexOf("\t") + 1));
    if (!r) continue;
    r.clicks -= c.clicks;
    r.visitors -= c.visitors;
  }
  return [...rest.values()].filter((r) => r.clicks > 0);
}

// The per-link rows keep browser and OS names lower-cased (as filters compare them); the day rows
// keep them as the events spell them.
async function spelledNames(db: Queryable, workspaceId: number, days: number[], dim: LinkDim): Promise<Map<string, string>> {
  const { rows } = await db.query<{ value: string }>(
    `select distinct value from analytics.click_day
     where workspace_id = $1 and fdim = '' and fvalue = '' and dim = $2
       and day = any(select date '1970-01-01' + d from unnest($3::int[]) as d)`,
    [workspaceId, dim, days],
  );
  return new Map(rows.map((r) => [r.value.toLowerCase(), r.value]));
}

/** The links' figures over the built days, grouped as `by` says (per link, by tag, by UTM value). */
export async function readLinkSetGroups(
  db: Queryable,
  workspaceId: number,
  days: number[],
  bots: Bots,
  f: LinkSetFilter,
  by: LinkGrouping,
): Promise<LinkGroupRow[]> {
  const rows = await linkSetRows(db, workspaceId, days, bots, f, TOTAL_DIM, "link_id, clicks, visitors");
  if (!rows) return [];
  return readLinkGroups(
    db,
    by,
    `select link_id, sum(clicks) as clicks, sum(visitors) as visitors from (${rows.sql}) r group by link_id`,
    rows.values,
  );
}
