import { inPgTransaction } from "../../db/pg-transaction.ts";
import type pg from "pg";
import {
  DAY_MS,
  utcDay,
  type ClickEvent,
  type ClickQuery,
  type ClickStore,
  type ExportRow,
  type ReportReader,
  type StoreAnswer,
  type StoreQuery,
} from "../model.ts";
import { insertClickEvents } from "./events-insert.ts";
import { streamEvents } from "./events-read.ts";
import { answerAll } from "./batch-read.ts";
import { answer } from "./execute.ts";
import { ensureMonthPartition, monthOf, partitionName } from "./partitions.ts";
import { pagePlanner, planQuery } from "./plan.ts";
import { unmarkRollupDaysIn } from "./rollup-build.ts";
import type { Queryable } from "../../db/queryable.ts";
import { loadVisitorSalt, pruneVisitorSalts } from "./salts.ts";

// The PostgreSQL click store (the ClickStore of lib/analytics/model.ts): events in a table
// partitioned by month, daily rollups for long reports (store/plan.ts says which table answers
// what), the daily visitor salts.

/** The UTC days of a batch (arithmetic per event, no Date: a flush runs on the thread that answers redirects). */
function daysOf(batch: ClickEvent[]): Set<number> {
  const days = new Set<number>();
  for (const e of batch) days.add(utcDay(e.at));
  return days;
}

export class PostgresClickStore implements ClickStore {
  /** partitions known to exist (created or seen by this process) */
  private months = new Set<string>();
  constructor(private pool: pg.Pool) {}

  /** Stores a batch in a transaction of its own (the click pipeline uses prepare and insertIn in its). */
  async record(batch: ClickEvent[]): Promise<void> {
    if (!batch.length) return;
    await this.prepare(batch);
    try {
      await inPgTransaction(this.pool, (client) => this.insertIn(client, batch));
    } catch (e) {
      this.forgetPartitions();
      throw e;
    }
  }

  /** Makes sure the batch's month partitions exist (DDL, before the insert's transaction; once a month per process). */
  async prepare(batch: ClickEvent[]): Promise<void> {
    for (const at of new Set([...daysOf(batch)].map((d) => partitionName(monthOf(d * DAY_MS))))) {
      if (this.months.has(at)) continue;
      const m = /^click_event_y(\d{4})m(\d{2})$/.exec(at)!;
      await ensureMonthPartition(this.pool, { year: Number(m[1]), month: Number(m[2]) });
      this.months.add(at);
    }
  }

  /**
   * Inserts the batch inside the caller's transaction (`q` is its connection). Events of a day whose
   * rollup is built already (a batch kept through an outage, a flush just after midnight) mark that
   * day to be built again, in the same transaction. After a failure, call forgetPartitions: a
   * partition may have been dropped meanwhile (retention).
   */
  async insertIn(q: Queryable, batch: ClickEvent[]): Promise<void> {
    if (!batch.length) return;
    await insertClickEvents(q, batch);
    const today = utcDay(Date.now());
    const late = [...daysOf(batch)].filter((d) => d < today);
    if (late.length) await unmarkRollupDaysIn(q, late);
  }

  async query<Q extends StoreQuery>(q: Q): Promise<StoreAnswer<Q["kind"]>> {
    return answer(this.pool, q, await planQuery(this.pool, q));
  }

  /** A reader for one page's reports: the built days read once (pagePlanner), reports asked together answered together (batch-read.ts). */
  page(span: { start: Date; end: Date }): ReportReader {
    const plan = pagePlanner(this.pool, span);
    return {
      query: async (q) => answer(this.pool, q, await plan(q)),
      queryAll: async <Q extends StoreQuery>(qs: Q[]) => {
        const plans = await Promise.all(qs.map((q) => plan(q)));
        return (await answerAll(
          this.pool,
          qs.map((q, i) => ({ q, plan: plans[i] })),
        )) as StoreAnswer<Q["kind"]>[];
      },
    };
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

  /** Forget which partitions exist (after the retention job dropped some, or a failed insert). */
  forgetPartitions(): void {
    this.months.clear();
  }
}
