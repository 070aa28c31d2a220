import type pg from "pg";
import {
  queryTimeseries,
  queryTopGroups,
  queryTotals,
  type Bucket,
  type ClickQuery,
  type GroupRow,
  type TopGroup,
  type Totals,
} from "./query-sql.ts";
import { buildRollupDay, builtDays, readRollup, type RollupDim } from "./rollup-sql.ts";
import { listMonthPartitions, type Queryable } from "./sql.ts";
import { DAY_MS, utcDay } from "./visitor.ts";

// Reports over long ranges read the daily rollups for every built UTC day in the range and the raw
// events only for the rest (the partial first and last day, today, days not built yet). Exact:
// visitor keys change every UTC day, so no visitor is split between the two parts. Used when a
// query has no filter other than bots (filtered queries, other time zones and hour buckets read
// the raw events, which the filters' indexes keep small).

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

export function rollupEligible(q: ClickQuery): boolean {
  return Object.entries(q.filters).every(([k, v]) => k === "bots" || v === undefined || v === null || (Array.isArray(v) && v.length === 0));
}

export type RollupPlan = { days: number[]; raw: { start: Date; end: Date }[] };

/** The built days of the range and the raw intervals around them; null when no built day helps. */
export async function planRollup(db: Queryable, q: ClickQuery): Promise<RollupPlan | null> {
  const start = q.start.getTime();
  const end = q.end.getTime();
  const first = Math.ceil(start / DAY_MS);
  const last = Math.floor(end / DAY_MS); // exclusive
  if (last - first < 2) return null;
  const built = await builtDays(db, first, last);
  if (!built.size) return null;
  const days = [...built].sort((a, b) => a - b);
  const raw: { start: Date; end: Date }[] = [];
  let from = start;
  for (const d of days) {
    if (d * DAY_MS > from) raw.push({ start: new Date(from), end: new Date(d * DAY_MS) });
    from = (d + 1) * DAY_MS;
  }
  if (end > from) raw.push({ start: new Date(from), end: new Date(end) });
  return { days, raw };
}

const part = (q: ClickQuery, r: { start: Date; end: Date }): ClickQuery => ({ ...q, start: r.start, end: r.end });

export async function rollupTotals(db: Queryable, q: ClickQuery, plan: RollupPlan): Promise<Totals> {
  const [rolled, ...raws] = await Promise.all([
    readRollup(db, q.workspaceId, "total", plan.days, q.filters.bots, false),
    ...plan.raw.map((r) => queryTotals(db, part(q, r))),
  ]);
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
    readRollup(db, q.workspaceId, "total", plan.days, q.filters.bots, true),
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

// a group's key <-> the rollup's text value ('' for none)
const encode = (group: TopGroup, key: GroupRow["key"]): string =>
  group === "cities" ? `${key[0] ?? ""}\t${key[1] ?? ""}` : key[0] === null || key[0] === undefined ? "" : String(key[0]);
function decode(group: TopGroup, value: string): GroupRow["key"] {
  if (group === "cities") {
    const [city, country] = value.split("\t");
    return [city || null, country || null];
  }
  if (group === "links") return [Number(value)];
  if (group === "qr") return [value === "true"];
  return [value || null];
}

export async function rollupTopGroups(db: Queryable, q: ClickQuery, group: TopGroup, limit: number, plan: RollupPlan): Promise<GroupRow[]> {
  const dim = GROUP_DIM[group]!;
  const [rolled, ...raws] = await Promise.all([
    readRollup(db, q.workspaceId, dim, plan.days, q.filters.bots, false),
    ...plan.raw.map((r) => queryTopGroups(db, part(q, r), group, 1_000_000)),
  ]);
  const byValue = new Map<string, Totals>();
  const add = (value: string, t: Totals) => {
    const b = byValue.get(value) ?? { clicks: 0, visitors: 0 };
    b.clicks += t.clicks;
    b.visitors += t.visitors;
    byValue.set(value, b);
  };
  for (const r of rolled) add(r.value, r);
  for (const list of raws) for (const r of list) add(encode(group, r.key), r);
  // as the raw query orders: clicks, visitors, then each key column with "none" last
  return [...byValue]
    .map(([value, t]): GroupRow => ({ key: decode(group, value), ...t }))
    .sort((a, b) => b.clicks - a.clicks || b.visitors - a.visitors || compareKeys(a.key, b.key))
    .slice(0, limit);
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

export function groupHasRollup(group: TopGroup): boolean {
  return GROUP_DIM[group] !== undefined;
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
  return n;
}
