import type pg from "pg";
import { VisitorSalts } from "./ingest/visitor.ts";
import { utcDay } from "./model.ts";
import type { PostgresClickStore } from "./store/click-store.ts";
import { createComingPartitions } from "./store/partitions.ts";
import { applyRetention } from "./store/retention.ts";
import { buildPendingRollups } from "./store/rollup-build.ts";
import { log } from "../log/index.ts";

// Background work of analytics (started by lib/runtime.ts): the coming month partitions at start;
// every hour the coming partitions again, expired events deleted, old visitor salts forgotten, and the
// daily rollups of complete UTC days built (store/rollup-build.ts). Click events themselves are written
// by the click pipeline (lib/clicks/writer.ts).

export async function maintainClickTable(pool: pg.Pool, store: PostgresClickStore, now = Date.now()): Promise<void> {
  await createComingPartitions(pool, now);
  const r = await applyRetention(pool, now);
  if (r.droppedPartitions.length) store.forgetPartitions();
  await new VisitorSalts(store).prune(utcDay(now));
  const built = await buildPendingRollups(pool, now);
  if (built > 3) log("analytics").info({ days: built }, `daily rollups built for ${built} days`);
  if (r.deleted || r.droppedPartitions.length) {
    log("analytics").info(
      { deleted: r.deleted, droppedPartitions: r.droppedPartitions },
      `retention: ${r.deleted} expired click events deleted, partitions dropped: ${r.droppedPartitions.join(", ") || "none"}`,
    );
  }
}

/**
 * Starts the hourly maintenance; `track` registers a running maintenance so a clean exit waits for
 * it (lib/background.ts). Returns the stop.
 */
export async function startAnalyticsJobs(
  pool: pg.Pool,
  store: PostgresClickStore,
  track: (work: Promise<void>) => Promise<void>,
): Promise<() => Promise<void>> {
  const maintain = () => void track(maintainClickTable(pool, store).catch((e) => log("analytics").error({ err: e }, "maintenance failed")));
  // the coming partitions before the first click; the rest (retention, rollups) in the background
  await createComingPartitions(pool).catch((e) => log("analytics").error({ err: e }, "cannot create partitions"));
  const first = setTimeout(maintain, 1000);
  const maintainTimer = setInterval(maintain, 60 * 60_000);
  first.unref();
  maintainTimer.unref();
  return async () => {
    clearInterval(maintainTimer);
    clearTimeout(first);
  };
}
