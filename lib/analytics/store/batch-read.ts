import type { Bucket, ClickQuery, StoreAnswer, StoreQuery, TopGroup, Totals } from "../model.ts";
import { readRollupByLinkAll, readRollupDims, type RollupRow } from "./day-rollup-read.ts";
import { isLinkGroup, type LinkGroup, type RollupDim } from "./dimensions.ts";
import { queryGroupSets, queryLinkGroupsAll, queryTotalsAndUtcDays } from "./events-read.ts";
import { answerWith, decoded, postgresReaders, type StoreReaders } from "./execute.ts";
import { sharedReads, type Interval, type SourcePlan } from "./plan.ts";
import type { Queryable } from "../../db/queryable.ts";

// The reports of one page answered together: each is answered as it would be alone (store/execute.ts
// answerWith), through readers that gather the reads to which store/plan.ts sharedReads gives the
// same key and send one statement per key. answerWith asks every read of a report before its
// first await, so all of them are gathered before the statements are sent; a read asked later
// would be sent alone.

type Waiting<T> = { resolve(v: T): void; reject(e: unknown): void };

/** The reads gathered under one key: what each asks, and the one statement that answers them all (in their order). */
type Shared<A, R> = { asks: A[]; waiting: Waiting<R>[]; send: (asks: A[]) => Promise<R[]> };

export async function answerAll(db: Queryable, reports: { q: StoreQuery; plan: SourcePlan }[]): Promise<StoreAnswer<StoreQuery["kind"]>[]> {
  const alone = postgresReaders(db);
  const gathered = new Map<string, Shared<unknown, unknown>>();
  let sent = false;

  /** One read under `key`: `send` (that of the key's first read: the key makes the others alike) answers every read of the key. */
  function gather<A, R>(key: string, ask: A, send: (asks: A[]) => Promise<R[]>): Promise<R> {
    if (sent) return send([ask]).then(([r]) => r);
    let shared = gathered.get(key) as Shared<A, R> | undefined;
    if (!shared) gathered.set(key, (shared = { asks: [], waiting: [], send }) as Shared<unknown, unknown>);
    shared.asks.push(ask);
    return new Promise<R>((resolve, reject) => shared.waiting.push({ resolve, reject }));
  }

  // a count and a series of one query: one read of the raw parts' totals and days
  const totalsAndDays = (key: string, q: ClickQuery, intervals: Interval[], ask: "totals" | "days") =>
    gather(`raw ${key}`, ask, async (asks: ("totals" | "days")[]): Promise<(Totals | Bucket[])[]> => {
      const r = await queryTotalsAndUtcDays(db, q, intervals);
      return asks.map((a) => (a === "totals" ? r.totals : r.days));
    });

  const readersOf = (report: StoreQuery, plan: SourcePlan): StoreReaders => {
    const { rolled, raw } = sharedReads(report, plan);
    return {
      ...alone,
      rolledTotals: (q, p, perDay) => {
        if (!rolled || p.source !== "day-rollup" || p.read !== "dim") return alone.rolledTotals(q, p, perDay);
        // a count and a series share the rows per day (a count adds them all up)
        return gather(`rolled ${rolled}`, p.dim, async (dims: RollupDim[]) => {
          const rows = await readRollupDims(db, q.workspaceId, [...new Set(dims)], p.days, q.filters.bots, true, p.filter);
          return dims.map((d) => rows.filter((r) => r.dim === d) as RollupRow[]);
        });
      },
      rolledGroups: (q, group, p) => {
        if (!rolled || p.source !== "day-rollup") return alone.rolledGroups(q, group, p);
        if (p.read === "dim")
          return gather(`rolled ${rolled}`, p.dim, async (dims: RollupDim[]) => {
            const rows = await readRollupDims(db, q.workspaceId, [...new Set(dims)], p.days, q.filters.bots, false, p.filter);
            return dims.map((d) => rows.filter((r) => r.dim === d));
          }).then((rows) => decoded(group, rows));
        return gather(`rolled ${rolled}`, p.by, (groups: LinkGroup[]) =>
          readRollupByLinkAll(db, q.workspaceId, p.days, q.filters.bots, groups),
        );
      },
      raw: {
        totals: (q, intervals) =>
          raw ? totalsAndDays(raw, q, intervals, "totals").then((r) => r as Totals) : alone.raw!.totals(q, intervals),
        utcDays: (q, intervals) =>
          raw ? totalsAndDays(raw, q, intervals, "days").then((r) => r as Bucket[]) : alone.raw!.utcDays(q, intervals),
        top: (q, group, intervals) => {
          if (!raw) return alone.raw!.top(q, group, intervals);
          if (isLinkGroup(group)) return gather(`raw ${raw}`, group, (groups: LinkGroup[]) => queryLinkGroupsAll(db, q, groups, intervals));
          return gather(`raw ${raw}`, group, (groups: TopGroup[]) => queryGroupSets(db, q, groups, intervals));
        },
      },
    };
  };

  const answers = reports.map(({ q, plan }) => answerWith(readersOf(q, plan), q, plan));
  sent = true;
  for (const { asks, waiting, send } of gathered.values())
    send(asks).then(
      (results) => waiting.forEach((w, i) => w.resolve(results[i])),
      (e) => waiting.forEach((w) => w.reject(e)),
    );
  return Promise.all(answers);
}
