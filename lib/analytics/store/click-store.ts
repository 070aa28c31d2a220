import type pg from "pg";
import {
  DAY_MS,
  utcDay,
  type ClickEvent,
  type ClickQuery,
  type ClickStore,
  type ExportRow,
  type StoreAnswer,
  type StoreQuery,
} from "../model.ts";
import { insertClickEvents } from "./events-insert.ts";
import { streamEvents } from "./events-read.ts";
import { answer } from "./execute.ts";
import { ensureMonthPartition, monthOf, partitionName } from "./partitions.ts";
import { planQuery } from "./plan.ts";
import { unmarkRollupDays } from "./rollup-build.ts";
import { loadVisitorSalt, pruneVisitorSalts } from "./salts.ts";

// The PostgreSQL click store (the ClickStore of lib/analytics/model.ts): events in a table
// partitioned by month, daily rollups for long reports (store/plan.ts says which table answers
// what), the daily visitor salts.

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
    return answer(this.pool, q, await planQuery(this.pool, q));
  }

  events(q: ClickQuery): AsyncGenerator<ExportRow[]> {
    return streamEvents(this.pool, q);
  }

  visitorSalt(day: number, candidate: Buffer): Promise<Buffer> {
    return loadVisitorSalt(this.pool, day, candidate);
  }

  pruneVisitorSalts(keepFromDay: number): Promise<void> {
    return pruneVisitorSalts(this.pool, keepFromDay);
  }

  /** Forget which partitions exist (after the retention job dropped some). */
  forgetPartitions(): void {
    this.months.clear();
  }
}
