import type { BotMode as Bots, GroupRow } from "../model.ts";
import { CASELESS_FILTERS, LINK_SETS, type DimFilter, type LinkDim, type LinkSetFilter } from "./dimensions.ts";
import { spelledNames, type RollupRow } from "./day-rollup-read.ts";
import { readLinkGroups, type LinkGrouping } from "./link-groups.ts";
import { botSql, Params } from "./sql-params.ts";
import type { Queryable } from "../../db/queryable.ts";

// Reading the daily rollups per link and dimension value (analytics.click_day_link; built with the
// day's click_day rows, store/rollup-build.ts): for the reports that group by link (links, tags,
// UTM values) under one dimension filter, and for the reports under a link, folder or tag filter.
// The index is link first, so a set of links reads its own rows; a filter value across every link
// is read through PostgreSQL's skip scan over the links. Visitors are each link's unique visitors,
// summed (the raw queries count them the same way: store/events-read.ts).

/** The days as runs of consecutive days, [first, end). */
export function dayRuns(days: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const d of [...days].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && last[1] === d) last[1] = d + 1;
    else runs.push([d, d + 1]);
  }
  return runs;
}

/**
 * The per-link rows of one dimension over the days (`cols` of them, `where` narrowing them further),
 * one select per run of consecutive days: a day range the index reads in order, where a list of days
 * would be searched for once per link and day.
 */
export function linkRowsSql(p: Params, workspaceId: number, days: number[], bots: Bots, dim: LinkDim, where: string, cols: string): string {
  const ws = p.add(workspaceId);
  const fdim = p.add(dim);
  return dayRuns(days)
    .map(
      ([first, end]) => `select ${cols} from analytics.click_day_link
         where workspace_id = ${ws} and fdim = ${fdim} ${where}
           and day >= date '1970-01-01' + ${p.add(first)}::int and day < date '1970-01-01' + ${p.add(end)}::int ${botSql(bots)}`,
    )
    .join(" union all ");
}

/** The days' rows under one filter, grouped as `by` says. Visitors are each link's, summed. */
export async function readLinkDays(
  q: Queryable,
  workspaceId: number,
  days: number[],
  bots: Bots,
  filter: DimFilter,
  by: LinkGrouping,
): Promise<GroupRow[]> {
  if (!days.length) return [];
  const p = new Params();
  const rows = linkRowsSql(p, workspaceId, days, bots, filter.dim, `and fvalue = ${p.add(filter.value)}`, "link_id, clicks, visitors");
  return readLinkGroups(
    q,
    by,
    `select link_id, sum(clicks) as clicks, sum(visitors) as visitors from (${rows}) r group by link_id`,
    p.values,
  );
}

// The links of the filter (what they are now), looked up first: the planner then knows how few
// they are and searches the index once per link (with a subquery it guessed and scanned whole days).
async function linkIds(db: Queryable, workspaceId: number, f: LinkSetFilter): Promise<number[]> {
  const p = new Params();
  const sql = (LINK_SETS[f.links].ids as (v: unknown, p: Params, ws: string) => string)(f.value, p, p.add(workspaceId));
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
export function withoutCity(cities: { value: string; clicks: number; visitors: number }[], countries: typeof cities): typeof cities {
  const rest = new Map(countries.map((c) => [c.value, { ...c, value: `\t${c.value}` }]));
  for (const c of cities) {
    const r = rest.get(c.value.slice(c.value.indexOf("\t") + 1));
    if (!r) continue;
    r.clicks -= c.clicks;
    r.visitors -= c.visitors;
  }
  return [...rest.values()].filter((r) => r.clicks > 0);
}

/** The links' figures over the built days, grouped as `by` says (per link, by tag, by UTM value). */
export async function readLinkSetGroups(
  db: Queryable,
  workspaceId: number,
  days: number[],
  bots: Bots,
  f: LinkSetFilter,
  by: LinkGrouping,
): Promise<GroupRow[]> {
  const rows = await linkSetRows(db, workspaceId, days, bots, f, TOTAL_DIM, "link_id, clicks, visitors");
  if (!rows) return [];
  return readLinkGroups(
    db,
    by,
    `select link_id, sum(clicks) as clicks, sum(visitors) as visitors from (${rows.sql}) r group by link_id`,
    rows.values,
  );
}
