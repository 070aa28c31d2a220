import { positiveNumber } from "../config/env.ts";
import { ClickEventRecorder } from "./ingest/recorder.ts";
import { VisitorSalts } from "./ingest/visitor.ts";
import { utcDay } from "./model.ts";
import { createComingPartitions } from "./store/partitions.ts";
import { analyticsPool, clickStore } from "./store/pool.ts";
import { applyRetention } from "./store/retention.ts";
import { buildPendingRollups } from "./store/rollup-build.ts";

// Background work of analytics (started from lib/jobs.ts): the click-event buffer is written every
// CLICK_FLUSH_MS (default 1000, like the click counters) and once more on stop; every hour the coming
// partitions are made, expired events deleted, old visitor salts forgotten, and the daily rollups of
// complete UTC days built (store/rollup-build.ts).

const g = globalThis as { __linkhopClickEvents?: ClickEventRecorder };

/** The process's one click-event buffer (shared by every module graph in the process). */
export function clickEventRecorder(): ClickEventRecorder {
  return (g.__linkhopClickEvents ??= new ClickEventRecorder(clickStore()));
}

export async function maintainClickTable(now = Date.now()): Promise<void> {
  const pool = analyticsPool();
  await createComingPartitions(pool, now);
  const r = await applyRetention(pool, now);
  if (r.droppedPartitions.length) clickStore().forgetPartitions();
  await new VisitorSalts(clickStore()).prune(utcDay(now));
  const built = await buildPendingRollups(pool, now);
  if (built > 3) console.log(`[analytics] daily rollups built for ${built} days`);
  if (r.deleted || r.droppedPartitions.length) {
    console.log(
      `[analytics] retention: ${r.deleted} expired click events deleted, partitions dropped: ${r.droppedPartitions.join(", ") || "none"}`,
    );
  }
}

export async function startAnalyticsJobs(intervalMs = positiveNumber(process.env.CLICK_FLUSH_MS, 1000)): Promise<() => Promise<void>> {
  const recorder = clickEventRecorder();
  const maintain = () => maintainClickTable().catch((e) => console.error(`[analytics] maintenance failed: ${(e as Error).message}`));
  // the coming partitions before the first click; the rest (retention, rollups) in the background
  await createComingPartitions(analyticsPool()).catch((e) =>
    console.error(`[analytics] cannot create partitions: ${(e as Error).message}`),
  );
  const first = setTimeout(maintain, 1000);
  first.unref();
  const flushTimer = setInterval(() => void recorder.flush(), Math.max(50, intervalMs));
  const maintainTimer = setInterval(maintain, 60 * 60_000);
  flushTimer.unref();
  maintainTimer.unref();
  return async () => {
    clearInterval(flushTimer);
    clearInterval(maintainTimer);
    clearTimeout(first);
    await recorder.flushForExit();
  };
}
