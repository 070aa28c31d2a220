import type pg from "pg";
import {
  DIRECT,
  queryTimeseries,
  queryTopGroups,
  queryTotals,
  utmColumn,
  type Bucket,
  type ClickFilters,
  type ClickQuery,
  type GroupRow,
  type TopGroup,
  type Totals,
} from "./query-sql.ts";
import type { LinkDim, RollupDim } from "./rollup-dims.ts";
import { buildRollupDay, builtDays, readRollup, readRollupByLink, type LinkSetFilter, type RollupFilter } from "./rollup-sql.ts";
import { readLinkDays } from "./rollup-link-sql.ts";
import { readLinkSetGroups, readLinkSetTotals, readLinkSetValues } from "./rollup-link-set.ts";
import { listMonthPartitions, type Queryable } from "./sql.ts";
import { DAY_MS, utcDay } from "./visitor.ts";

// Reports over long ranges read the daily rollups for every built UTC day in the range and the raw
// events only for the rest (the partial first and last day, today, days not built yet). Exact:
// visitor keys change every UTC day, so no visitor is split between the two parts. Used when a
// query has at most one filter, in UTC days: a dimension filter (country, referrer, device, browser,
// OS or QR; bots aside) reads the pair rows, and its links, tags and UTM groups the per-link rows
// (lib/analytics/rollup-link-sql.ts); a link, folder or tag filter reads the per-link rows of its
// links (lib/analytics/rollup-link-set.ts). Other queries (a city filter, two filters, other time
// zones, hour buckets) read the raw events, which their indexes keep small or which are short.

const GROUP_DIM: Partial<Record<TopGroup, RollupDim>> = {
  countries: "country",
  cities: "city",
  referrers: "referrer",
  devices: "device",
  browsers: "browser",
  os: "os",
  links: "link",
  qr: "qr",
};
/** groups read from the per-link rollup and what the links are now (tags, UTM values of their URL) */
const BY_LINK: Partial<Record<TopGroup, { tags: true } | { linkValue: string }>> = {
  tags: { tags: true },
  utm_source: { linkValue: utmColumn("utm_source") },
  utm_medium: { linkValue: utmColumn("utm_medium") },
  utm_campaign: { linkValue: utmColumn("utm_campaign") },
};

// a filter as the rollups keep it: the same value the raw filter compares with (lib/analytics/query-sql.ts)
type ToRollup<K extends keyof ClickFilters> = (v: NonNullable<ClickFilters[K]>) => NonNullable<RollupFilter>;
const ROLLUP_FILTER: Partial<{ [K in keyof ClickFilters]: ToRollup<K> }> = {
  country: (v) => ({ dim: "country", value: v.toUpperCase() }),
  referrer: (v) => ({ dim: "referrer", value: v === DIRECT ? "" : v.toLowerCase() }),
  device: (v) => ({ dim: "device", value: v }),
  browser: (v) => ({ dim: "browser", value: v.toLowerCase() }),
  os: (v) => ({ dim: "os", value: v.toLowerCase() }),
  qr: (v) => ({ dim: "qr", value: String(v) }),
  linkId: (v) => ({ links: "linkId", value: v }),
  folder: (v) => ({ links: "folder", value: v }),
  tags: (v) => ({ links: "tags", value: v }),
};

/** The query's one filter as a rollup filter (null: none); undefined when rollups cannot answer it. */
function rollupFilter(q: ClickQuery): RollupFilter | undefined {
  let filter: RollupFilter = null;
  for (const [key, value] of Object.entries(q.filters) as [keyof ClickFilters, unknown][]) {
    if (key === "bots" || value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    const toRollup = ROLLUP_FILTER[key] as ((v: unknown) => NonNullable<RollupFilter>) | undefined;
    if (!toRollup || filter) return undefined;
    filter = toRollup(value);
  }
  return filter;
}

const isLinkSet = (f: RollupFilter): f is LinkSetFilter => f !== null && "links" in f;

type Interval = { start: Date; end: Date };
/** The built days to read rollups for (with the query's one filter, if any) and the raw intervals around them. */
export type RollupPlan = { days: number[]; raw: Interval[]; filter: RollupFilter };

/** The built days of the range and the raw intervals around them; null when rollups cannot help. */
export async function planRollup(db: Queryable, q: ClickQuery): Promise<RollupPlan | null> {
  const filter = rollupFilter(q);
  if (filter === undefined) return null;
  const start = q.start.getTime();
  const end = q.end.getTime();
  const first = Math.ceil(start / DAY_MS);
  const last = Math.floor(end / DAY_MS); // exclusive
  if (last - first < 2) return null;
  const built = await builtDays(db, first, last);
  if (!built.size) return null;
  const days = [...built].sort((a, b) => a - b);
  const raw: Interval[] = [];
  let from = start;
  for (const d of days) {
    if (d * DAY_MS > from) raw.push({ start: new Date(from), end: new Date(d * DAY_MS) });
    from = (d + 1) * DAY_MS;
  }
  if (end > from) raw.push({ start: new Date(from), end: new Date(end) });
  return { days, raw, filter };
}

const part = (q: ClickQuery, r: { start: Date; end: Date }): ClickQuery => ({ ...q, start: r.start, end: r.end });

// the built days' totals, in all or per day
const rolledTotals = (db: Queryable, q: ClickQuery, plan: RollupPlan, perDay: boolean) =>
  isLinkSet(plan.filter)
    ? readLinkSetTotals(db, q.workspaceId, plan.days, q.filters.bots, plan.filter, perDay)
    : readRollup(db, q.workspaceId, "total", plan.days, q.filters.bots, perDay, plan.filter);

export async function rollupTotals(db: Queryable, q: ClickQuery, plan: RollupPlan): Promise<Totals> {
  const [rolled, ...raws] = await Promise.all([rolledTotals(db, q, plan, false), ...plan.raw.map((r) => queryTotals(db, part(q, r)))]);
  const out = { clicks: 0, visitors: 0 };
  for (const t of [...rolled, ...raws]) {
    out.clicks += t.clicks;
    out.visitors += t.visitors;
  }
  return out;
}

/** Day buckets in UTC: the rollup's days and the raw parts' buckets, every day of the range present. */
export async function rollupDays(db: Queryable, q: ClickQuery, plan: RollupPlan): Promise<Bucket[]> {
  const [rolled, ...raws] = await Promise.all([
    rolledTotals(db, q, plan, true),
    ...plan.raw.map((r) => queryTimeseries(db, part(q, r), "day", "UTC")),
  ]);
  const byDay = new Map<number, Totals>();
  const add = (day: number, t: Totals) => {
    const b = byDay.get(day) ?? { clicks: 0, visitors: 0 };
    b.clicks += t.clicks;
    b.visitors += t.visitors;
    byDay.set(day, b);
  };
  for (const r of rolled) add(r.day, r);
  for (const list of raws) for (const b of list) add(utcDay(b.start.getTime()), b);
  const out: Bucket[] = [];
  for (let d = utcDay(q.start.getTime()); d * DAY_MS < q.end.getTime(); d++)
    out.push({ start: new Date(d * DAY_MS), ...(byDay.get(d) ?? { clicks: 0, visitors: 0 }) });
  return out;
}

// a rollup value ('' for none) as the group's key
function decode(group: TopGroup, value: string): GroupRow["key"] {
  if (group === "cities") {
    const [city, country] = value.split("\t");
    return [city || null, country || null];
  }
  if (group === "links") return [Number(value)];
  if (group === "qr") return [value === "true"];
  return [value || null];
}

async function readRolledGroups(db: Queryable, q: ClickQuery, group: TopGroup, plan: RollupPlan): Promise<GroupRow[]> {
  const byLink = BY_LINK[group];
  const filter = plan.filter;
  const bots = q.filters.bots;
  if (isLinkSet(filter)) {
    if (group === "links" || byLink) return readLinkSetGroups(db, q.workspaceId, plan.days, bots, filter, byLink ?? "link");
    const rows = await readLinkSetValues(db, q.workspaceId, plan.days, bots, filter, GROUP_DIM[group] as LinkDim);
    return rows.map((r) => ({ key: decode(group, r.value), clicks: r.clicks, visitors: r.visitors }));
  }
  if (filter && (group === "links" || byLink)) return readLinkDays(db, q.workspaceId, plan.days, bots, filter, byLink ?? "link");
  if (byLink) return readRollupByLink(db, q.workspaceId, plan.days, bots, byLink);
  const rows = await readRollup(db, q.workspaceId, GROUP_DIM[group]!, plan.days, bots, false, filter);
  return rows.map((r) => ({ key: decode(group, r.value), clicks: r.clicks, visitors: r.visitors }));
}

export async function rollupTopGroups(db: Queryable, q: ClickQuery, group: TopGroup, limit: number, plan: RollupPlan): Promise<GroupRow[]> {
  const [rolled, ...raws] = await Promise.all([
    readRolledGroups(db, q, group, plan),
    ...plan.raw.map((r) => queryTopGroups(db, part(q, r), group, 1_000_000)),
  ]);
  const byKey = new Map<string, GroupRow>();
  for (const r of [...rolled, ...raws.flat()]) {
    const id = JSON.stringify(r.key);
    const seen = byKey.get(id);
    if (seen) {
      seen.clicks += r.clicks;
      seen.visitors += r.visitors;
    } else byKey.set(id, { ...r });
  }
  // as the raw query orders: clicks, visitors, then each key column with "none" last
  return [...byKey.values()].sort((a, b) => b.clicks - a.clicks || b.visitors - a.visitors || compareKeys(a.key, b.key)).slice(0, limit);
}

function compareKeys(a: GroupRow["key"], b: GroupRow["key"]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Builds every complete UTC day not built yet, from the oldest partition's month (nothing is older)
 * to yesterday. Returns the days built.
 */
export async function buildPendingRollups(pool: pg.Pool, now = Date.now(), maxDays = 2000): Promise<number> {
  const months = await listMonthPartitions(pool);
  if (!months.length) return 0;
  const first = utcDay(Date.UTC(months[0].year, months[0].month - 1, 1));
  const today = utcDay(now);
  const built = await builtDays(pool, first, today);
  let n = 0;
  for (let d = today - 1; d >= first && n < maxDays; d--) {
    if (built.has(d)) continue;
    await buildRollupDay(pool, d);
    n++;
  }
  // marks the new rows visible to all, so reports read the rollups' indexes alone (no table pages)
  if (n) await pool.query("vacuum (analyze) analytics.click_day, analytics.click_day_link");
  return n;
}
