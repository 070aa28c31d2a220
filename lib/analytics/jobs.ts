import { positiveNumber } from "../redirects/sql.ts";
import { ClickEventRecorder } from "./recorder.ts";
import { applyRetention, createComingPartitions } from "./retention.ts";
import { analyticsPool, clickStore } from "./store.ts";
import { utcDay, VisitorSalts } from "./visitor.ts";

// Background work of analytics (started from lib/jobs.ts): the click-event buffer is written every
// CLICK_FLUSH_MS (default 1000, like the click counters) and once more on stop; every hour the coming
// partitions are made, expired events deleted and old visitor salts forgotten.

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
  await new VisitorSalts(pool).prune(utcDay(now));
  if (r.deleted || r.droppedPartitions.length) {
    console.log(`[analytics] retention: ${r.deleted} expired click events deleted, partitions dropped: ${r.droppedPartitions.join(", ") || "none"}`);
  }
}

export async function startAnalyticsJobs(intervalMs = positiveNumber(process.env.CLICK_FLUSH_MS, 1000)): Promise<() => Promise<void>> {
  const recorder = clickEventRecorder();
  const maintain = () => maintainClickTable().catch((e) => console.error(`[analytics] maintenance failed: ${(e as Error).message}`));
  await maintain();
  const flushTimer = setInterval(() => void recorder.flush(), Math.max(50, intervalMs));
  const maintainTimer = setInterval(maintain, 60 * 60_000);
  flushTimer.unref();
  maintainTimer.unref();
  return async () => {
    clearInterval(flushTimer);
    clearInterval(maintainTimer);
    await recorder.flushForExit();
  };
}
