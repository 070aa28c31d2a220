import type pg from "pg";
import { inPgTransaction } from "../../db/pg-transaction.ts";
import { analyticsRetentionDays, planOf } from "../../plans/index.ts";
import type { Queryable } from "../../db/queryable.ts";
import { log } from "../../log/index.ts";
import { advanceCursor, ensureCursor, FEED_START, readClickEventsAfter, type FedClickEvent } from "../store/feed.ts";
import type { ExportRow } from "../model.ts";
import type { ClickHouseClient } from "./client.ts";

// The sink: click events go from PostgreSQL (where the click flush commits them) to ClickHouse, in
// the feed's commit order (store/feed.ts), a batch at a time:
//
//   read up to N events after the cursor "clickhouse" -> insert them into ClickHouse with an insert
//   token naming the batch (its first and last feed position) -> move the cursor past them
//
// A ClickHouse outage (or a crash) between the insert and the cursor's move repeats the same batch
// (the feed gives the same events after the same position) with the same token, which ClickHouse
// deduplicates: events are delayed, never lost or doubled. PostgreSQL keeps them until the cursor
// has passed them (store/feed.ts pruneFedClickEvents).

export const SINK_CURSOR = "clickhouse";

/**
 * The row ClickHouse's click_event takes (schema.ts): the export's row (model.ts) with the time as
 * ClickHouse's text, plus what only the sink writes.
 */
export type ClickHouseRow = Omit<ExportRow, "at"> & {
  at: string;
  workspace_id: number;
  visitor: string;
  tx: string;
  seq: string;
  keep_days: number;
};

/** ClickHouse's DateTime64(3) text, in UTC. */
export const clickHouseTime = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace("T", " ");

export function toClickHouseRow(e: FedClickEvent, keepDays: number): ClickHouseRow {
  return {
    at: clickHouseTime(e.at),
    workspace_id: e.workspaceId,
    link_id: e.linkId,
    domain: e.domain,
    target: e.target,
    country: e.country,
    city: e.city,
    referrer_host: e.referrerHost,
    referrer_url: e.referrerUrl,
    device: e.device,
    browser: e.browser,
    os: e.os,
    bot: e.bot,
    qr: e.qr,
    visitor: e.visitor,
    destination: e.destination ?? null,
    language: e.language ?? null,
    tx: e.position.tx,
    seq: e.position.seq,
    keep_days: Math.min(65_535, keepDays),
  };
}

/** The retention in days of each workspace's plan now (an unknown workspace: the first plan's). */
async function keepDaysOf(q: Queryable, workspaceIds: number[]): Promise<Map<number, number>> {
  const { rows } = await q.query<{ id: number; plan: string }>({
    name: "analytics_sink_workspace_plans",
    text: `select id, plan from "Workspace" where id = any($1::int[])`,
    values: [workspaceIds],
  });
  const byId = new Map(rows.map((r) => [r.id, analyticsRetentionDays(planOf(r.plan))]));
  for (const id of workspaceIds) if (!byId.has(id)) byId.set(id, analyticsRetentionDays(planOf("")));
  return byId;
}

/** Inserts a batch into ClickHouse under its token (a repeat of the same batch is dropped by ClickHouse). */
export async function insertBatch(ch: ClickHouseClient, rows: ClickHouseRow[], token: string): Promise<void> {
  await ch.insert({
    table: "click_event",
    values: rows,
    format: "JSONEachRow",
    clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: token },
  });
}

/** One process at a time moves events (a transaction-scoped advisory lock; the others skip the turn). */
const SINK_LOCK = 72120419;

/** One step of the sink: moves up to `limit` events; returns how many (0: nothing was waiting, or another process is moving them). */
export async function sinkOnce(pool: pg.Pool, ch: ClickHouseClient, limit = 10_000): Promise<number> {
  return inPgTransaction(pool, async (q) => {
    const { rows } = await q.query<{ ok: boolean }>({
      name: "analytics_sink_lock",
      text: `select pg_try_advisory_xact_lock($1) as ok`,
      values: [SINK_LOCK],
    });
    if (!rows[0].ok) return 0;
    const from = await ensureCursor(q, SINK_CURSOR, FEED_START);
    const { events, next } = await readClickEventsAfter(q, from, limit);
    if (!events.length) return 0;
    const keep = await keepDaysOf(q, [...new Set(events.map((e) => e.workspaceId))]);
    const first = events[0].position;
    const token = `feed-${first.tx}.${first.seq}-${next.tx}.${next.seq}`;
    await insertBatch(
      ch,
      events.map((e) => toClickHouseRow(e, keep.get(e.workspaceId)!)),
      token,
    );
    await advanceCursor(q, SINK_CURSOR, next);
    return events.length;
  });
}

export type SinkOptions = { intervalMs?: number; batch?: number };

/**
 * Runs the sink until stopped: drains what is waiting, then looks again every `intervalMs`; after a
 * failure (ClickHouse or PostgreSQL away) it waits and tries the same batch again. Returns the stop.
 */
export function startClickHouseSink(pool: pg.Pool, ch: ClickHouseClient, opts: SinkOptions = {}): () => Promise<void> {
  const intervalMs = opts.intervalMs ?? 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let failures = 0;
  const loop = (async () => {
    while (!stopped) {
      let moved = 0;
      try {
        moved = await sinkOnce(pool, ch, opts.batch);
        if (failures) log("analytics").info({ failures }, "ClickHouse sink is writing again");
        failures = 0;
      } catch (e) {
        failures++;
        if (failures === 1 || failures % 60 === 0)
          log("analytics").warn({ err: e, failures }, "ClickHouse sink could not move events; it tries the same batch again");
      }
      if (moved && !stopped) continue;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, failures ? Math.min(30_000, intervalMs * 2 ** Math.min(failures, 5)) : intervalMs);
      });
    }
  })();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    wake?.();
    await loop;
  };
}
