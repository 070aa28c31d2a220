import { inPgTransaction } from "../db/pg-transaction.ts";
import type pg from "pg";
import { VisitorSalts } from "../analytics/ingest/visitor.ts";
import type { ClickEvent } from "../analytics/model.ts";
import type { PostgresClickStore } from "../analytics/store/click-store.ts";
import { log } from "../log/index.ts";
import type { Config } from "../config/index.ts";
import { claimClickBatch, pruneClickBatches } from "./batches.ts";
import { addCappedClicks, addLinkClicks, stampLastClicks } from "./counters.ts";
import { oweClickedDeliveries } from "./deliveries.ts";
import { ClickJournal, journalFolder } from "./journal.ts";
import { ClickPipeline, type ClickBatch, type ClickWriter } from "./pipeline.ts";

/** What the writer needs of the analytics click store: its events inside the flush's transaction. */
export type ClickEventTable = Pick<PostgresClickStore, "prepare" | "insertIn" | "forgetPartitions" | "visitorSalt" | "pruneVisitorSalts">;

/** how often the writer forgets old batch ids (batches.ts) */
const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * The pipeline's writer: the batch's id, counters, events and the link.clicked cursors they are owed
 * behind (deliveries.ts) in one transaction on one connection of `pool`. A batch whose id is
 * recorded already (a journal replay of a batch that committed) writes nothing.
 */
export function postgresClickWriter(pool: pg.Pool, events: ClickEventTable): ClickWriter {
  const salts = new VisitorSalts(events);
  let prunedAt = 0;
  return {
    saltFor: (day) => salts.saltFor(day),
    async write(batch: ClickBatch) {
      if (!batch.totals.size && !batch.events.length && !batch.capped.size) return;
      // partitions first, on the store's own connection: no connection is held idle meanwhile
      await events.prepare(batch.events);
      let counts: Map<number, number> | undefined;
      try {
        await inPgTransaction(pool, async (client) => {
          if (!(await claimClickBatch(client, batch.id))) return;
          await addLinkClicks(client, batch.totals);
          const capped = await addCappedClicks(client, batch.capped);
          const stored = withinCaps(batch, capped);
          await stampLastClicks(client, stored);
          await events.insertIn(client, stored);
          await oweClickedDeliveries(client, stored);
          counts = new Map([...capped].map(([id, c]) => [id, c.clicks]));
        });
      } catch (e) {
        events.forgetPartitions();
        throw e;
      }
      if (Date.now() - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        await pruneClickBatches(pool).catch(() => {}); // tried again in an hour; nothing depends on it
      }
      return counts;
    },
  };
}

/**
 * The batch's events but the held clicks (pipeline.ts addHeld) beyond what their link's counter
 * took (`capped`: added per link; a link deleted meanwhile keeps its events, as uncapped ones do):
 * a click let through during an outage that another process's clicks had already made one too
 * many is neither counted nor stored, so counted clicks never exceed the cap.
 */
function withinCaps(batch: ClickBatch, capped: Map<number, { added: number }>): ClickEvent[] {
  if (!batch.held.length) return batch.events;
  const taken = new Map<number, number>();
  const beyond = new Set<number>();
  for (const i of batch.held) {
    const linkId = batch.events[i].linkId;
    const room = capped.get(linkId)?.added ?? Infinity;
    const n = taken.get(linkId) ?? 0;
    if (n < room) taken.set(linkId, n + 1);
    else beyond.add(i);
  }
  if (!beyond.size) return batch.events;
  log("clicks").warn(
    { clicks: beyond.size },
    "clicks on capped links let through while the database could not count them were beyond their caps when written: not counted, not stored",
  );
  return batch.events.filter((_, i) => !beyond.has(i));
}

/**
 * The runtime's click pipeline (lib/runtime.ts): one buffer flushed every CLICK_FLUSH_MS on the
 * redirect path's pool, with its journal under LINKHOP_DATA_DIR for `databaseUrl`'s database (a
 * restart replays what it holds from the first flush on). The returned stop writes what is left
 * (lib/runtime.ts says when).
 */
export function startClickPipeline(
  pool: pg.Pool,
  events: ClickEventTable,
  config: Pick<Config, "CLICK_FLUSH_MS" | "CLICK_JOURNAL_MAX_MB" | "LINKHOP_DATA_DIR">,
  databaseUrl: string,
): { pipeline: ClickPipeline; stop: () => Promise<void> } {
  const journal = new ClickJournal(journalFolder(config.LINKHOP_DATA_DIR, databaseUrl), config.CLICK_JOURNAL_MAX_MB * 1024 * 1024);
  const pipeline = new ClickPipeline(postgresClickWriter(pool, events), { journal });
  if (journal.batches) void pipeline.flush(); // replay at once what a previous run left
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
