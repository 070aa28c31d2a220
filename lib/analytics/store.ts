import pg from "pg";
import { positiveNumber } from "../config/env.ts";
import {
  queryTimeseries,
  queryTopGroups,
  queryTotals,
  streamEvents,
  type Bucket,
  type ClickQuery,
  type ExportRow,
  type GroupRow,
  type TopGroup,
  type Totals,
} from "./query-sql.ts";
import { planRollup, rollupDays, rollupTopGroups, rollupTotals } from "./rollup.ts";
import { unmarkRollupDays } from "./rollup-sql.ts";
import { ensureMonthPartition, insertClickEvents, monthOf, partitionName, type ClickEvent, type Queryable } from "./sql.ts";
import { DAY_MS, utcDay } from "./visitor.ts";

// The click store: the one place that knows where click events live. Today that is a PostgreSQL
// table partitioned by month; an install that outgrows it can add another implementation of
// ClickStore (a column store such as ClickHouse) without touching the redirect, the API or the page.

export type StoreQuery =
  | { kind: "count"; query: ClickQuery }
  | { kind: "timeseries"; query: ClickQuery; unit: "hour" | "day"; timezone: string }
  | { kind: "top"; query: ClickQuery; group: TopGroup; limit: number };

export type StoreAnswer<K extends StoreQuery["kind"]> = K extends "count" ? Totals : K extends "timeseries" ? Bucket[] : GroupRow[];

export interface ClickStore {
  /** Stores a batch; throws when it could not (the caller keeps the batch for a retry). */
  record(batch: ClickEvent[]): Promise<void>;
  query<Q extends StoreQuery>(q: Q): Promise<StoreAnswer<Q["kind"]>>;
  /** The raw events of a query, oldest first, a page at a time. */
  events(q: ClickQuery): AsyncGenerator<ExportRow[]>;
  /** Where the daily visitor salts are kept (lib/analytics/visitor.ts). */
  saltSource(): Queryable;
}

export class PostgresClickStore implements ClickStore {
  /** partitions known to exist (created or seen by this process) */
  private months = new Set<string>();
  constructor(private pool: pg.Pool) {}

  async record(batch: ClickEvent[]): Promise<void> {
    if (!batch.length) return;
    // the batch's days first (arithmetic), then a Date per day, not per event: a flush runs on the
    // thread that answers redirects
    const days = new Set<number>();
    for (const e of batch) days.add(utcDay(e.at));
    for (const at of new Set([...days].map((d) => partitionName(monthOf(d * DAY_MS))))) {
      if (this.months.has(at)) continue;
      const m = /^click_event_y(\d{4})m(\d{2})$/.exec(at)!;
      await ensureMonthPartition(this.pool, { year: Number(m[1]), month: Number(m[2]) });
      this.months.add(at);
    }
    try {
      await insertClickEvents(this.pool, batch);
    } catch (e) {
      // a partition dropped meanwhile (retention): make sure again on the next try
      this.months.clear();
      throw e;
    }
    // events of a day whose rollup is built already (a batch kept through an outage, a flush just
    // after midnight): that day is built again
    const today = utcDay(Date.now());
    const late = [...days].filter((d) => d < today);
    if (late.length) await unmarkRollupDays(this.pool, late);
  }

  async query<Q extends StoreQuery>(q: Q): Promise<StoreAnswer<Q["kind"]>> {
    // long reports the rollups can answer: daily rollups for the built days, raw events for the rest
    // the rollups keep days in UTC (and at most one filter: planRollup)
    const rollable = q.kind !== "timeseries" || (q.unit === "day" && q.timezone === "UTC");
    const plan = rollable ? await planRollup(this.pool, q.query) : null;
    if (plan) {
      if (q.kind === "count") return (await rollupTotals(this.pool, q.query, plan)) as StoreAnswer<Q["kind"]>;
      if (q.kind === "timeseries") return (await rollupDays(this.pool, q.query, plan)) as StoreAnswer<Q["kind"]>;
      if (q.kind === "top") return (await rollupTopGroups(this.pool, q.query, q.group, q.limit, plan)) as StoreAnswer<Q["kind"]>;
    }
    switch (q.kind) {
      case "count":
        return queryTotals(this.pool, q.query) as Promise<StoreAnswer<Q["kind"]>>;
      case "timeseries":
        return queryTimeseries(this.pool, q.query, q.unit, q.timezone) as Promise<StoreAnswer<Q["kind"]>>;
      default:
        return queryTopGroups(this.pool, q.query, q.group, q.limit) as Promise<StoreAnswer<Q["kind"]>>;
    }
  }

  events(q: ClickQuery): AsyncGenerator<ExportRow[]> {
    return streamEvents(this.pool, q);
  }

  saltSource(): Queryable {
    return this.pool;
  }

  /** Forget which partitions exist (after the retention job dropped some). */
  forgetPartitions(): void {
    this.months.clear();
  }
}

const g = globalThis as { __linkhopAnalyticsPool?: pg.Pool; __linkhopClickStore?: PostgresClickStore };

/** How many connections analytics' pool opens at most (ANALYTICS_POOL_SIZE, default 4). */
export function analyticsPoolSize(): number {
  return Math.round(positiveNumber(process.env.ANALYTICS_POOL_SIZE, 4));
}

/** Analytics' own small pool: a long report never holds a connection the redirect path needs. */
export function analyticsPool(): pg.Pool {
  if (!g.__linkhopAnalyticsPool) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start through server.ts or set it");
    const pool = new pg.Pool({
      connectionString: url,
      max: analyticsPoolSize(),
      idleTimeoutMillis: 30_000,
    });
    pool.on("error", (e) => console.error(`[analytics] idle database connection failed: ${e.message}`));
    g.__linkhopAnalyticsPool = pool;
  }
  return g.__linkhopAnalyticsPool;
}

export async function closeAnalyticsPool(): Promise<void> {
  const pool = g.__linkhopAnalyticsPool;
  g.__linkhopAnalyticsPool = undefined;
  g.__linkhopClickStore = undefined;
  await pool?.end();
}

/** The process's click store (shared by the custom server's module graph and Next's). */
export function clickStore(): PostgresClickStore {
  return (g.__linkhopClickStore ??= new PostgresClickStore(analyticsPool()));
}
