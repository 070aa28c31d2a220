import { inPgTransaction } from "../db/pg-transaction.ts";
import type pg from "pg";
import { VisitorSalts } from "../analytics/ingest/visitor.ts";
import type { PostgresClickStore } from "../analytics/store/click-store.ts";
import type { Config } from "../config/index.ts";
import { handOffAfterCommit } from "../events/index.ts";
import { addLinkClicks } from "./counters.ts";
import { recordClickDeliveries } from "./deliveries.ts";
import { ClickPipeline, type ClickBatch, type ClickWriter } from "./pipeline.ts";

/** What the writer needs of the analytics click store: its events inside the flush's transaction. */
export type ClickEventTable = Pick<PostgresClickStore, "prepare" | "insertIn" | "forgetPartitions" | "visitorSalt" | "pruneVisitorSalts">;

/**
 * The pipeline's writer: counters, events and the link.clicked deliveries they owe in one
 * transaction on one connection of `pool`; the deliveries are handed off after the commit.
 */
export function postgresClickWriter(pool: pg.Pool, events: ClickEventTable): ClickWriter {
  const salts = new VisitorSalts(events);
  return {
    saltFor: (day) => salts.saltFor(day),
    async write(batch: ClickBatch) {
      if (!batch.totals.size && !batch.events.length) return;
      // partitions first, on the store's own connection: no connection is held idle meanwhile
      await events.prepare(batch.events);
      let deliveries: number[];
      try {
        deliveries = await inPgTransaction(pool, async (client) => {
          await addLinkClicks(client, batch.totals);
          await events.insertIn(client, batch.events);
          return recordClickDeliveries(client, batch.events);
        });
      } catch (e) {
        events.forgetPartitions();
        throw e;
      }
      handOffAfterCommit(deliveries);
    },
  };
}

/**
 * The runtime's click pipeline (lib/runtime.ts): one buffer flushed every CLICK_FLUSH_MS on the
 * redirect path's pool. The returned stop writes what is left (lib/runtime.ts says when).
 */
export function startClickPipeline(
  pool: pg.Pool,
  events: ClickEventTable,
  config: Pick<Config, "CLICK_FLUSH_MS">,
): { pipeline: ClickPipeline; stop: () => Promise<void> } {
  const pipeline = new ClickPipeline(postgresClickWriter(pool, events));
  const flushTimer = setInterval(() => void pipeline.flush(), config.CLICK_FLUSH_MS);
  flushTimer.unref();
  return {
    pipeline,
    async stop() {
      clearInterval(flushTimer);
      await pipeline.flushForExit();
    },
  };
}
