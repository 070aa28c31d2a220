import {
  DAY_MS,
  utcDay,
  type Bucket,
  type ClickQuery,
  type GroupRow,
  type StoreAnswer,
  type StoreQuery,
  type TopGroup,
  type Totals,
} from "../model.ts";
import { readRollup, readRollupByLink, type RollupRow } from "./day-rollup-read.ts";
import { readFilterDestinations } from "./destination-rollup.ts";
import { decodeValue } from "./dimensions.ts";
import { queryTimeseries, queryTopGroups, queryTotals, queryUtcDays } from "./events-read.ts";
import { readLinkDays, readLinkSetGroups, readLinkSetTotals, readLinkSetValues } from "./link-day-rollup-read.ts";
import type { Interval, RollupPlan, SourcePlan } from "./plan.ts";
import type { Queryable } from "../../db/queryable.ts";

// Answering a report as its plan says (store/plan.ts decides): from the raw events alone, or from
// the rollups for the plan's built days and the raw events for the intervals around them, added up.
// The adding up is the same for every store (PostgreSQL's and ClickHouse's): a store gives its
// readers of the raw events and of its rollups (StoreReaders).

/** What a store reads: the raw events of an interval, and its rollups' built days as a plan says. */
export type StoreReaders = {
  totals(q: ClickQuery): Promise<Totals>;
  timeseries(q: ClickQuery, unit: "hour" | "day", timezone: string): Promise<Bucket[]>;
  top(q: ClickQuery, group: TopGroup, limit: number): Promise<GroupRow[]>;
  /** the built days' totals, in all or per day (a totals plan) */
  rolledTotals(q: ClickQuery, plan: RollupPlan, perDay: boolean): Promise<RollupRow[]>;
  /** the built days' groups (a groups plan) */
  rolledGroups(q: ClickQuery, group: TopGroup, plan: RollupPlan): Promise<GroupRow[]>;
  /**
   * A rollup plan's raw parts read at once: their totals, their clicks per UTC day (days without
   * clicks may be left out), their groups. Without these, each interval is read on its own by the
   * readers above.
   */
  raw?: {
    totals(q: ClickQuery, intervals: Interval[]): Promise<Totals>;
    utcDays(q: ClickQuery, intervals: Interval[]): Promise<Bucket[]>;
    top(q: ClickQuery, group: TopGroup, intervals: Interval[]): Promise<GroupRow[]>;
  };
};

/** PostgreSQL's readers (store/events-read.ts, the rollup readers). */
export const postgresReaders = (db: Queryable): StoreReaders => ({
  totals: (q) => queryTotals(db, q),
  timeseries: (q, unit, timezone) => queryTimeseries(db, q, unit, timezone),
  top: (q, group, limit) => queryTopGroups(db, q, group, limit),
  rolledTotals: (q, plan, perDay) => rolledTotals(db, q, plan, perDay),
  rolledGroups: (q, group, plan) => readRolledGroups(db, q, group, plan),
  raw: {
    totals: (q, intervals) => queryTotals(db, q, intervals),
    utcDays: (q, intervals) => queryUtcDays(db, q, intervals),
    top: (q, group, intervals) => queryTopGroups(db, q, group, ALL_GROUPS, intervals),
  },
});

export function answer<Q extends StoreQuery>(db: Queryable, q: Q, plan: SourcePlan): Promise<StoreAnswer<Q["kind"]>> {
  return answerWith(postgresReaders(db), q, plan);
}

export async function answerWith<Q extends StoreQuery>(r: StoreReaders, q: Q, plan: SourcePlan): Promise<StoreAnswer<Q["kind"]>> {
  type A = StoreAnswer<Q["kind"]>;
  if (plan.source !== "events") {
    if (q.kind === "count") return (await rollupTotals(r, q.query, plan)) as A;
    if (q.kind === "timeseries") return (await rollupDays(r, q.query, plan)) as A;
    if (q.kind === "top") return (await rollupTopGroups(r, q.query, q.group, q.limit, plan)) as A;
  }
  switch (q.kind) {
    case "count":
      return r.totals(q.query) as Promise<A>;
    case "timeseries":
      return r.timeseries(q.query, q.unit, q.timezone) as Promise<A>;
    default:
      return r.top(q.query, q.group, q.limit) as Promise<A>;
  }
}

const part = (q: ClickQuery, r: Interval): ClickQuery => ({ ...q, start: r.start, end: r.end });
/** A raw part's groups are all added up before the top `limit` are kept. */
const ALL_GROUPS = 1_000_000;

// A plan's raw parts: one read for all of them when the store reads several intervals at once, else
// one read per interval.
const rawTotals = (r: StoreReaders, q: ClickQuery, raw: Interval[]): Promise<Totals>[] =>
  !raw.length ? [] : r.raw ? [r.raw.totals(q, raw)] : raw.map((i) => r.totals(part(q, i)));
const rawDays = (r: StoreReaders, q: ClickQuery, raw: Interval[]): Promise<Bucket[]>[] =>
  !raw.length ? [] : r.raw ? [r.raw.utcDays(q, raw)] : raw.map((i) => r.timeseries(part(q, i), "day", "UTC"));
const rawGroups = (r: StoreReaders, q: ClickQuery, group: TopGroup, raw: Interval[]): Promise<GroupRow[]>[] =>
  !raw.length ? [] : r.raw ? [r.raw.top(q, group, raw)] : raw.map((i) => r.top(part(q, i), group, ALL_GROUPS));

// the built days' totals, in all or per day
function rolledTotals(db: Queryable, q: ClickQuery, plan: RollupPlan, perDay: boolean): Promise<RollupRow[]> {
  const { workspaceId, filters } = q;
  if (plan.read === "link-set-totals") return readLinkSetTotals(db, workspaceId, plan.days, filters.bots, plan.filter, perDay);
  if (plan.read === "dim") return readRollup(db, workspaceId, plan.dim, plan.days, filters.bots, perDay, plan.filter);
  throw new Error(`a ${plan.read} plan has no totals`);
}

async function rollupTotals(r: StoreReaders, q: ClickQuery, plan: RollupPlan): Promise<Totals> {
  const [rolled, ...raws] = await Promise.all([r.rolledTotals(q, plan, false), ...rawTotals(r, q, plan.raw)]);
  const out = { clicks: 0, visitors: 0 };
  for (const t of [...rolled, ...raws]) {
    out.clicks += t.clicks;
    out.visitors += t.visitors;
  }
  return out;
}

/** Day buckets in UTC: the rollup's days and the raw parts' buckets, every day of the range present. */
async function rollupDays(r: StoreReaders, q: ClickQuery, plan: RollupPlan): Promise<Bucket[]> {
  const [rolled, ...raws] = await Promise.all([r.rolledTotals(q, plan, true), ...rawDays(r, q, plan.raw)]);
  const byDay = new Map<number, Totals>();
  const add = (day: number, t: Totals) => {
    const b = byDay.get(day) ?? { clicks: 0, visitors: 0 };
    b.clicks += t.clicks;
    b.visitors += t.visitors;
    byDay.set(day, b);
  };
  for (const row of rolled) add(row.day, row);
  for (const list of raws) for (const b of list) add(utcDay(b.start.getTime()), b);
  const out: Bucket[] = [];
  for (let d = utcDay(q.start.getTime()); d * DAY_MS < q.end.getTime(); d++)
    out.push({ start: new Date(d * DAY_MS), ...(byDay.get(d) ?? { clicks: 0, visitors: 0 }) });
  return out;
}

export const decoded = (group: TopGroup, rows: { value: string; clicks: number; visitors: number }[]): GroupRow[] =>
  rows.map((r) => ({ key: decodeValue(group, r.value), clicks: r.clicks, visitors: r.visitors }));

async function readRolledGroups(db: Queryable, q: ClickQuery, group: TopGroup, plan: RollupPlan): Promise<GroupRow[]> {
  const { workspaceId: ws, filters } = q;
  switch (plan.read) {
    case "dim":
      return decoded(group, await readRollup(db, ws, plan.dim, plan.days, filters.bots, false, plan.filter));
    case "links-now":
      return readRollupByLink(db, ws, plan.days, filters.bots, plan.by);
    case "filter-links":
      return readLinkDays(db, ws, plan.days, filters.bots, plan.filter, plan.by);
    case "filter-destinations":
      return decoded(group, await readFilterDestinations(db, ws, plan.days, filters.bots, plan.filter));
    case "link-set-groups":
      return readLinkSetGroups(db, ws, plan.days, filters.bots, plan.filter, plan.by);
    case "link-set-values":
      return decoded(group, await readLinkSetValues(db, ws, plan.days, filters.bots, plan.filter, plan.dim));
    case "link-set-totals":
      throw new Error("a totals plan has no groups");
  }
}

async function rollupTopGroups(r: StoreReaders, q: ClickQuery, group: TopGroup, limit: number, plan: RollupPlan): Promise<GroupRow[]> {
  const [rolled, ...raws] = await Promise.all([r.rolledGroups(q, group, plan), ...rawGroups(r, q, group, plan.raw)]);
  const byKey = new Map<string, GroupRow>();
  for (const row of [...rolled, ...raws.flat()]) {
    const id = JSON.stringify(row.key);
    const seen = byKey.get(id);
    if (seen) {
      seen.clicks += row.clicks;
      seen.visitors += row.visitors;
    } else byKey.set(id, { ...row });
  }
  // as the raw query orders: clicks, visitors, then each key column with "none" last
  return [...byKey.values()].sort((a, b) => b.clicks - a.clicks || b.visitors - a.visitors || compareKeys(a.key, b.key)).slice(0, limit);
}

export function compareKeys(a: GroupRow["key"], b: GroupRow["key"]): number {
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
