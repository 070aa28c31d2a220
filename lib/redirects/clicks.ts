import { inPgTransaction } from "../db/pg-transaction.ts";
import type pg from "pg";
import { VisitorSalts } from "../analytics/ingest/visitor.ts";
import type { PostgresClickStore } from "../analytics/store/click-store.ts";
import type { Config } from "../config/index.ts";
import { handOffCommitted } from "../events/index.ts";
import { recordClickDeliveries } from "./click-deliveries.ts";
import { ClickPipeline, type ClickBatch, type ClickWriter } from "./click-pipeline.ts";
import { GUESS_WINDOW_SECONDS } from "./password.ts";
import { addLinkClicks, prunePasswordGuesses } from "./sql.ts";
import { log } from "../log/index.ts";

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
      handOffCommitted(deliveries);
    },
  };
}

/**
 * The runtime's click pipeline (lib/runtime.ts): one buffer flushed every CLICK_FLUSH_MS on the
 * redirect path's pool, and the pruning of ended password-guess windows every 10 minutes. The
 * returned stop writes what is left (lib/runtime.ts says when).
 */
export function startClickPipeline(
  pool: pg.Pool,
  events: ClickEventTable,
  config: Pick<Config, "CLICK_FLUSH_MS">,
): { pipeline: ClickPipeline; stop: () => Promise<void> } {
  const pipeline = new ClickPipeline(postgresClickWriter(pool, events));
  const flushTimer = setInterval(() => void pipeline.flush(), config.CLICK_FLUSH_MS);
  const pruneTimer = setInterval(() => {
    prunePasswordGuesses(pool, GUESS_WINDOW_SECONDS).catch((e) => log("redirects").error({ err: e }, "pruning password guesses failed"));
  }, 10 * 60_000);
  flushTimer.unref();
  pruneTimer.unref();
  return {
    pipeline,
    async stop() {
      clearInterval(flushTimer);
      clearInterval(pruneTimer);
      await pipeline.flushForExit();
    },
  };
}
