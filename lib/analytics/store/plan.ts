import { DAY_MS, type ClickFilters, type ClickQuery, type StoreQuery, type TopGroup } from "../model.ts";
import {
  DIMENSIONS,
  GROUP_DIM,
  isLinkGroup,
  present,
  rollupFilterOf,
  type DimFilter,
  type LinkDim,
  type LinkGroup,
  type LinkSetFilter,
  type RollupDim,
  type RollupFilter,
} from "./dimensions.ts";
import type { LinkGrouping } from "./link-groups.ts";
import { builtDays } from "./rollup-build.ts";
import type { Queryable } from "../../db/queryable.ts";

// Which table answers a report: decided here and nowhere else (store/execute.ts only carries it out).
//
// | report shape (filters: bots aside)                             | source                 | what is read                                  |
// | -------------------------------------------------------------- | ---------------------- | --------------------------------------------- |
// | hour buckets, or day buckets in a time zone other than UTC     | events                 | analytics.click_event                         |
// | a city filter, or two filters or more                          | events                 |                                               |
// | fewer than 2 whole UTC days, or none of them built             | events                 |                                               |
// | count, timeseries: no filter or one dimension filter           | day-rollup             | click_day: the total under the filter         |
// | count, timeseries: a link, folder or tag filter                | link-day-rollup        | click_day_link: the links' device rows        |
// | top countries ... qr, languages, links, destinations: no filter| day-rollup             | click_day: that dimension under the filter    |
// | top countries ... qr, languages: a dimension filter            | day-rollup             |                                               |
// | top destinations: a dimension filter                           | destination-day-rollup | click_day_destination: the filter value's     |
// |                                                                |                        |   rows, named by click_destination            |
// | top tags, utm_*: no filter                                     | day-rollup             | click_day: link rows, joined to the links now |
// | top links, tags, utm_*: a dimension filter                     | link-day-rollup        | click_day_link: the filter value's rows       |
// | top links, tags, utm_*: a link, folder or tag filter           | link-day-rollup        | click_day_link: the links' device rows        |
// | top countries ... qr, destinations, languages: a link, folder  | link-day-rollup        | click_day_link: the links' rows of that group |
// |   or tag filter                                                |                        |                                               |
//
// A rollup plan's raw intervals (the partial first day, days not built, today) are read by one
// statement. A page's reports (ClickStore.page: the Analytics page's totals, series, previous
// period and 14 panels) read the built days once for all of them (pagePlanner), and are answered
// together (store/batch-read.ts), sharing statements as sharedReads says:
//
// | reads of a page's reports (same query, range and bot mode)          | one statement                          |
// | ------------------------------------------------------------------- | -------------------------------------- |
// | day-rollup "dim" reads, count and timeseries                        | click_day, every dim, per day          |
// | day-rollup "dim" reads, top groups (countries ... links, languages) | click_day, every dim, summed           |
// | day-rollup "links-now" reads (top tags, utm_*)                      | click_day link rows, a union per group |
// | raw intervals, count and timeseries                                 | events: grouping sets (), (day)        |
// | raw intervals, top groups but tags and utm_*                        | events: a grouping set per group       |
// | raw intervals, top tags and utm_* (they join the links)             | events per link, a union per group     |
// | anything else (events plans, per-link and destination rollups)      | alone, as a report alone reads it      |
//
// A dimension filter is country, referrer, device, browser, OS or QR (store/dimensions.ts: a
// filter the rollups keep). A rollup plan reads the built UTC days of the range from the rollups and
// the rest (the partial first and last day, today, days not built yet) from the events, and adds
// them up. Exact: visitor keys change every UTC day, so no visitor is split between the two parts.
// Other queries read the raw events, which their indexes keep small or which are short.

/** How a rollup plan reads its built days (each is one reader in store/execute.ts). */
export type RollupRead =
  | { source: "day-rollup"; read: "dim"; dim: RollupDim; filter: DimFilter | null }
  | { source: "day-rollup"; read: "links-now"; by: LinkGroup; filter: null }
  | { source: "destination-day-rollup"; read: "filter-destinations"; filter: DimFilter }
  | { source: "link-day-rollup"; read: "filter-links"; by: LinkGrouping; filter: DimFilter }
  | { source: "link-day-rollup"; read: "link-set-totals"; filter: LinkSetFilter }
  | { source: "link-day-rollup"; read: "link-set-groups"; by: LinkGrouping; filter: LinkSetFilter }
  | { source: "link-day-rollup"; read: "link-set-values"; dim: LinkDim; filter: LinkSetFilter };

export type Interval = { start: Date; end: Date };
/** The built days read from the rollups, and the raw intervals around them. */
export type RollupPlan = RollupRead & { days: number[]; raw: Interval[] };
export type SourcePlan = { source: "events" } | RollupPlan;

/** The query's one filter as the rollups keep it (null: none); undefined when the rollups cannot answer it. */
function oneRollupFilter(filters: ClickFilters): RollupFilter | undefined {
  let filter: RollupFilter = null;
  for (const [key, value] of Object.entries(filters) as [keyof ClickFilters, unknown][]) {
    if (key === "bots" || !present(value)) continue;
    const kept = rollupFilterOf(key, value);
    if (!kept || filter) return undefined;
    filter = kept;
  }
  return filter;
}

/**
 * Whether the rollups answer a group under a dimension filter: the groups read per link (links, tags,
 * UTM values), destinations (rows of their own), and the pair dimensions, whose values the day rows
 * keep under each filter value (store/dimensions.ts).
 */
const keptUnderDimFilter = (g: TopGroup): boolean =>
  g === "links" || g === "destinations" || isLinkGroup(g) || DIMENSIONS[GROUP_DIM[g]!].pair;

/**
 * The UTC days [first, last) whose rollups could answer the query, and its filter as the rollups
 * keep it; null when only the events can (the first four rows of the table).
 */
export function rollupWindow(q: StoreQuery): { first: number; last: number; filter: RollupFilter } | null {
  // the rollups keep days in UTC
  if (q.kind === "timeseries" && (q.unit !== "day" || q.timezone !== "UTC")) return null;
  const filter = oneRollupFilter(q.query.filters);
  if (filter === undefined) return null;
  if (q.kind === "top" && filter !== null && "dim" in filter && !keptUnderDimFilter(q.group)) return null;
  const first = Math.ceil(q.query.start.getTime() / DAY_MS);
  const last = Math.floor(q.query.end.getTime() / DAY_MS); // exclusive
  if (last - first < 2) return null;
  return { first, last, filter };
}

/** The rest of the table: what a rollup plan reads, by the report's kind and group and its one filter. */
function rollupRead(q: StoreQuery, filter: RollupFilter): RollupRead {
  const linkSet = filter !== null && "links" in filter ? filter : null;
  const dimFilter = filter !== null && "dim" in filter ? filter : null;
  if (q.kind !== "top")
    return linkSet
      ? { source: "link-day-rollup", read: "link-set-totals", filter: linkSet }
      : { source: "day-rollup", read: "dim", dim: "total", filter: dimFilter };
  const group = q.group;
  // groups read per link: the links themselves, or what the links are now
  const perLink: LinkGrouping | null = group === "links" ? "link" : isLinkGroup(group) ? group : null;
  if (linkSet)
    return perLink
      ? { source: "link-day-rollup", read: "link-set-groups", by: perLink, filter: linkSet }
      : { source: "link-day-rollup", read: "link-set-values", dim: GROUP_DIM[group] as LinkDim, filter: linkSet };
  if (dimFilter && perLink) return { source: "link-day-rollup", read: "filter-links", by: perLink, filter: dimFilter };
  // destinations under a filter have rows of their own (long URLs: store/destination-rollup.ts)
  if (dimFilter && group === "destinations") return { source: "destination-day-rollup", read: "filter-destinations", filter: dimFilter };
  if (isLinkGroup(group)) return { source: "day-rollup", read: "links-now", by: group, filter: null };
  return { source: "day-rollup", read: "dim", dim: GROUP_DIM[group]!, filter: dimFilter };
}

/** The raw intervals of the range around the built days (sorted). */
function rawIntervals(q: ClickQuery, days: number[]): Interval[] {
  const start = q.start.getTime();
  const end = q.end.getTime();
  const raw: Interval[] = [];
  let from = start;
  for (const d of days) {
    if (d * DAY_MS > from) raw.push({ start: new Date(from), end: new Date(d * DAY_MS) });
    from = (d + 1) * DAY_MS;
  }
  if (end > from) raw.push({ start: new Date(from), end: new Date(end) });
  return raw;
}

/** The plan of a report given the built days (a pure function of the two). */
export function planSource(q: StoreQuery, built: ReadonlySet<number>): SourcePlan {
  const window = rollupWindow(q);
  if (!window) return { source: "events" };
  const days = [...built].filter((d) => d >= window.first && d < window.last).sort((a, b) => a - b);
  if (!days.length) return { source: "events" };
  return { ...rollupRead(q, window.filter), days, raw: rawIntervals(q.query, days) };
}

/**
 * The planner of one page's reports (the Analytics page: its range and the previous period, `span`
 * covering both): the built days of the span read once, when the first report that the rollups could
 * answer asks, and every report planned by planSource on them, as planQuery would. A report reaching
 * outside the span reads its own.
 */
export function pagePlanner(db: Queryable, span: Interval): (q: StoreQuery) => Promise<SourcePlan> {
  const first = Math.ceil(span.start.getTime() / DAY_MS);
  const last = Math.floor(span.end.getTime() / DAY_MS);
  let built: Promise<Set<number>> | undefined;
  return async (q) => {
    const window = rollupWindow(q);
    if (!window) return { source: "events" };
    if (window.first < first || window.last > last) return planSource(q, await builtDays(db, window.first, window.last));
    built ??= builtDays(db, first, last);
    return planSource(q, await built);
  };
}

/** planSource with the built days of the report's window read from the store (none read when no rollup can help). */
export async function planQuery(db: Queryable, q: StoreQuery): Promise<SourcePlan> {
  const window = rollupWindow(q);
  return window ? planSource(q, await builtDays(db, window.first, window.last)) : { source: "events" };
}

/**
 * The keys of the statements a report's reads share with the other reports of its page (the table
 * above): reads with the same key are one statement; null: read alone.
 */
export function sharedReads(q: StoreQuery, plan: SourcePlan): { rolled: string | null; raw: string | null } {
  if (plan.source === "events") return { rolled: null, raw: null };
  const { workspaceId, filters } = q.query;
  const rolled =
    plan.source !== "day-rollup"
      ? null
      : plan.read === "dim"
        ? JSON.stringify(["dim", workspaceId, plan.filter, plan.days, filters.bots, q.kind === "top" ? "summed" : "per day"])
        : JSON.stringify(["links-now", workspaceId, plan.days, filters.bots]);
  const shape = q.kind !== "top" ? "totals and days" : isLinkGroup(q.group) ? "link groups" : "groups";
  const raw = plan.raw.length && shape ? JSON.stringify([shape, workspaceId, filters, plan.raw]) : null;
  return { rolled, raw };
}
