import type pg from "pg";
import { inPgTransaction } from "../../db/pg-transaction.ts";
import { log } from "../../log/index.ts";
import { setShared } from "../../registry.ts";
import type { PostgresClickStore } from "../store/click-store.ts";
import { ensureCursor, FEED_START, pruneFedClickEvents } from "../store/feed.ts";
import { createClickHouse, type ClickHouseClient, type ClickHouseTarget } from "./client.ts";
import { buildPendingClickHouseDays } from "./rollup-build.ts";
import { migrateClickHouse } from "./schema.ts";
import { SINK_CURSOR, startClickHouseSink } from "./sink.ts";
import { ClickHouseClickStore } from "./source.ts";

// ClickHouse in a process (lib/runtime.ts calls this when CLICKHOUSE_URL is set): the report store
// (lib/analytics/store/instance.ts reportStore answers from it), and in a process that runs the
// background jobs, the schema migration, the sink, the daily rollups' builds and the pruning of
// PostgreSQL's copy.

export type ClickHouseAnalytics = { client: ClickHouseClient; store: ClickHouseClickStore };

const PRUNE_EVERY_MS = 60 * 60_000;
const BUILD_EVERY_MS = 10 * 60_000;
/** one builder of ClickHouse's rollups at a time across processes (a transaction-scoped advisory lock) */
const BUILD_LOCK = 72120420;

/** Builds ClickHouse's pending rollup days if no other process is (clickhouse/rollup-build.ts). Returns the days built. */
export async function buildClickHouseRollups(pool: pg.Pool, client: ClickHouseClient, now = Date.now()): Promise<number> {
  return inPgTransaction(pool, async (q) => {
    const { rows } = await q.query<{ ok: boolean }>(`select pg_try_advisory_xact_lock($1) as ok`, [BUILD_LOCK]);
    return rows[0].ok ? buildPendingClickHouseDays(client, now) : 0;
  });
}
const PRUNE_BATCH = 50_000;
/** at most this many batches per run: the rest waits for the next hour */
const PRUNE_BATCHES = 40;

/**
 * Deletes PostgreSQL's click events older than `keepMs` that every feed reader has passed (the sink
 * first makes its cursor, so nothing is pruned before the sink has copied it). Returns the rows deleted.
 */
export async function prunePostgresCopy(pool: pg.Pool, keepMs: number, now = Date.now()): Promise<number> {
  await ensureCursor(pool, SINK_CURSOR, FEED_START);
  let deleted = 0;
  for (let i = 0; i < PRUNE_BATCHES; i++) {
    const n = await inPgTransaction(pool, (c) => pruneFedClickEvents(c, new Date(now - keepMs), PRUNE_BATCH));
    deleted += n;
    if (n < PRUNE_BATCH) break;
  }
  return deleted;
}

export async function startClickHouseAnalytics(
  target: ClickHouseTarget,
  pool: pg.Pool,
  postgres: PostgresClickStore,
  opts: { jobs: boolean; keepMs: number; sinkIntervalMs?: number },
): Promise<() => Promise<void>> {
  const client = createClickHouse(target);
  const store = new ClickHouseClickStore(client, pool, postgres);
  setShared<ClickHouseAnalytics>("clickhouse", { client, store });
  const stops: (() => Promise<void> | void)[] = [];
  if (opts.jobs) {
    // the schema first (retried until ClickHouse answers), then the sink; nothing blocks the start
    let stopped = false;
    let stopSink: (() => Promise<void>) | undefined;
    // the rollups: after the schema (the days stored before step 2 are built then), then every few minutes
    let building: Promise<unknown> = Promise.resolve();
    const build = () =>
      (building = building.then(() =>
        stopped
          ? 0
          : buildClickHouseRollups(pool, client)
              .then((n) => n && log("analytics").info({ days: n }, `ClickHouse rollups built for ${n} days`))
              .catch((e) => log("analytics").warn({ err: e }, "building ClickHouse's rollups failed; the next run tries again")),
      ));
    const started = (async () => {
      for (let attempt = 0; !stopped; attempt++) {
        try {
          const applied = await migrateClickHouse(client);
          if (applied.length) log("analytics").info({ applied }, "ClickHouse schema migrated");
          break;
        } catch (e) {
          if (attempt % 20 === 0) log("analytics").warn({ err: e }, "ClickHouse schema: cannot migrate yet, trying again");
          await new Promise((r) => setTimeout(r, 3000).unref());
        }
      }
      if (!stopped) stopSink = startClickHouseSink(pool, client, { intervalMs: opts.sinkIntervalMs });
      if (!stopped) void build();
    })();
    const buildTimer = setInterval(() => void build(), BUILD_EVERY_MS);
    buildTimer.unref();
    stops.push(() => clearInterval(buildTimer));
    stops.push(async () => {
      stopped = true;
      await started;
      await stopSink?.();
      await building;
    });
    const prune = () =>
      prunePostgresCopy(pool, opts.keepMs)
        .then((n) => n && log("analytics").info({ deleted: n }, `PostgreSQL's copy of ${n} click events pruned (ClickHouse has them)`))
        .catch((e) => log("analytics").error({ err: e }, "pruning PostgreSQL's click events failed"));
    const timer = setInterval(() => void prune(), PRUNE_EVERY_MS);
    timer.unref();
    stops.push(() => clearInterval(timer));
  }
  return async () => {
    for (const stop of stops) await stop();
    setShared("clickhouse", undefined);
    await client.close();
  };
}
