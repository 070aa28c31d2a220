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
import { decodeValue } from "./dimensions.ts";
import { queryTimeseries, queryTopGroups, queryTotals } from "./events-read.ts";
import { readLinkDays, readLinkSetGroups, readLinkSetTotals, readLinkSetValues } from "./link-day-rollup-read.ts";
import type { Interval, RollupPlan, SourcePlan } from "./plan.ts";
import type { Queryable } from "../../db/queryable.ts";

// Answering a report as its plan says (store/plan.ts decides): from the raw events alone, or from
// the rollups for the plan's built days and the raw events for the intervals around them, added up.

export async function answer<Q extends StoreQuery>(db: Queryable, q: Q, plan: SourcePlan): Promise<StoreAnswer<Q["kind"]>> {
  type A = StoreAnswer<Q["kind"]>;
  if (plan.source !== "events") {
    if (q.kind === "count") return (await rollupTotals(db, q.query, plan)) as A;
    if (q.kind === "timeseries") return (await rollupDays(db, q.query, plan)) as A;
    if (q.kind === "top") return (await rollupTopGroups(db, q.query, q.group, q.limit, plan)) as A;
  }
  switch (q.kind) {
    case "count":
      return queryTotals(db, q.query) as Promise<A>;
    case "timeseries":
      return queryTimeseries(db, q.query, q.unit, q.timezone) as Promise<A>;
    default:
      return queryTopGroups(db, q.query, q.group, q.limit) as Promise<A>;
  }
}

const part = (q: ClickQuery, r: Interval): ClickQuery => ({ ...q, start: r.start, end: r.end });

// the built days' totals, in all or per day
function rolledTotals(db: Queryable, q: ClickQuery, plan: RollupPlan, perDay: boolean): Promise<RollupRow[]> {
  const { workspaceId, filters } = q;
  if (plan.read === "link-set-totals") return readLinkSetTotals(db, workspaceId, plan.days, filters.bots, plan.filter, perDay);
  if (plan.read === "dim") return readRollup(db, workspaceId, plan.dim, plan.days, filters.bots, perDay, plan.filter);
  throw new Error(`a ${plan.read} plan has no totals`);
}

async function rollupTotals(db: Queryable, q: ClickQuery, plan: RollupPlan): Promise<Totals> {
  const [rolled, ...raws] = await Promise.all([rolledTotals(db, q, plan, false), ...plan.raw.map((r) => queryTotals(db, part(q, r)))]);
  const out = { clicks: 0, visitors: 0 };
  for (const t of [...rolled, ...raws]) {
    out.clicks += t.clicks;
    out.visitors += t.visitors;
  }
  return out;
}

/** Day buckets in UTC: the rollup's days and the raw parts' buckets, every day of the range present. */
async function rollupDays(db: Queryable, q: ClickQuery, plan: RollupPlan): Promise<Bucket[]> {
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

const decoded = (group: TopGroup, rows: { value: string; clicks: number; visitors: number }[]): GroupRow[] =>
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
    case "link-set-groups":
      return readLinkSetGroups(db, ws, plan.days, filters.bots, plan.filter, plan.by);
    case "link-set-values":
      return decoded(group, await readLinkSetValues(db, ws, plan.days, filters.bots, plan.filter, plan.dim));
    case "link-set-totals":
      throw new Error("a totals plan has no groups");
  }
}

async function rollupTopGroups(db: Queryable, q: ClickQuery, group: TopGroup, limit: number, plan: RollupPlan): Promise<GroupRow[]> {
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
