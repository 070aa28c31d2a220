import { Gauge, type Registry } from "prom-client";
import type pg from "pg";

// Gauges read at scrape time only (prom-client calls their collect() while it renders /metrics):
// sizes and depths held in memory, the database pools' counts, and two answers of the database,
// each read with a timeout. What they read is handed over by lib/runtime.ts (setSources), so this
// base module needs no service; without a runtime, sizes show 0 and the database answers NaN.

export type MetricSources = {
  /** the process's pg pools by name (lib/db/client.ts), Prisma's included */
  pools: () => Record<string, pg.Pool>;
  /** the click pipeline's events waiting to be written (lib/clicks/pipeline.ts) */
  clickBacklog?: () => number;
  /** batches (and their bytes) in the click journal, waiting for the database (lib/clicks/journal.ts) */
  clickJournal?: () => { batches: number; bytes: number };
  /** entries in the redirect cache (lib/redirects/cache.ts) */
  redirectCacheEntries?: () => number;
  /** seconds since the oldest due webhook delivery became due; 0 when none is due */
  oldestDueDeliverySeconds: () => Promise<number>;
  /** complete UTC days whose analytics rollups are not built yet */
  rollupLagDays: () => Promise<number>;
};

/** How long a scrape waits for one database answer; a slower one shows NaN and its source as down. */
export const SOURCE_TIMEOUT_MS = 2000;

type Read = () => Promise<number>;

/**
 * A database read for a gauge: one at a time (callers while it runs share it, and a scrape during
 * an outage does not queue a second query behind a stuck one), NaN when it fails or takes longer
 * than SOURCE_TIMEOUT_MS; `up` says which.
 */
function guarded(read: () => Read | undefined, up: Gauge<"source">, source: string) {
  let running: Promise<number> | null = null;
  return async (): Promise<number> => {
    const fn = read();
    if (!fn) return NaN;
    running ??= fn().finally(() => (running = null));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<number>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), SOURCE_TIMEOUT_MS);
    });
    try {
      const value = await Promise.race([running, timeout]);
      up.set({ source }, 1);
      return value;
    } catch {
      up.set({ source }, 0);
      return NaN;
    } finally {
      clearTimeout(timer);
    }
  };
}

export function registerSourceGauges(registry: Registry, sources: () => MetricSources | undefined): void {
  const registers = [registry];
  const up: Gauge<"source"> = new Gauge({
    name: "linkhop_metrics_source_up",
    help: "1 when this scrape read this source of the database in time, else 0 (its gauge then shows NaN)",
    labelNames: ["source"],
    registers,
    // the reads below are shared by the gauges of one scrape, so this waits for the same queries
    async collect() {
      await Promise.all([oldestDue(), rollupLag()]);
    },
  });
  const oldestDue = guarded(() => sources()?.oldestDueDeliverySeconds, up, "webhook_oldest_due");
  const rollupLag = guarded(() => sources()?.rollupLagDays, up, "analytics_rollup_lag");

  new Gauge({
    name: "linkhop_click_pipeline_backlog_events",
    help: "Click events waiting in the click pipeline to be written (new and kept after a failed flush)",
    registers,
    collect() {
      this.set(sources()?.clickBacklog?.() ?? 0);
    },
  });
  new Gauge({
    name: "linkhop_click_journal_batches",
    help: "Click batches the database refused, waiting in the click journal on disk to be replayed",
    registers,
    collect() {
      this.set(sources()?.clickJournal?.().batches ?? 0);
    },
  });
  new Gauge({
    name: "linkhop_click_journal_bytes",
    help: "Bytes the click journal holds on disk (bounded by CLICK_JOURNAL_MAX_MB)",
    registers,
    collect() {
      this.set(sources()?.clickJournal?.().bytes ?? 0);
    },
  });
  new Gauge({
    name: "linkhop_redirect_cache_entries",
    help: "Links (and 'no such link' answers) in the redirect cache",
    registers,
    collect() {
      this.set(sources()?.redirectCacheEntries?.() ?? 0);
    },
  });
  new Gauge({
    name: "linkhop_db_pool_connections",
    help: "Open connections of each database pool, in use or idle",
    labelNames: ["pool", "state"],
    registers,
    collect() {
      this.reset();
      for (const [pool, p] of Object.entries(sources()?.pools() ?? {})) {
        this.set({ pool, state: "in_use" }, p.totalCount - p.idleCount);
        this.set({ pool, state: "idle" }, p.idleCount);
      }
    },
  });
  new Gauge({
    name: "linkhop_db_pool_waiting",
    help: "Queries waiting for a connection of each database pool",
    labelNames: ["pool"],
    registers,
    collect() {
      this.reset();
      for (const [pool, p] of Object.entries(sources()?.pools() ?? {})) this.set({ pool }, p.waitingCount);
    },
  });
  new Gauge({
    name: "linkhop_db_pool_max_connections",
    help: "Connections each database pool may open (lib/config pool sizes)",
    labelNames: ["pool"],
    registers,
    collect() {
      this.reset();
      for (const [pool, p] of Object.entries(sources()?.pools() ?? {})) this.set({ pool }, p.options.max ?? 10);
    },
  });
  new Gauge({
    name: "linkhop_webhook_oldest_due_seconds",
    help: "How long the oldest webhook delivery due for an attempt has been due (0: none is due)",
    registers,
    async collect() {
      this.set(await oldestDue());
    },
  });
  new Gauge({
    name: "linkhop_analytics_rollup_lag_days",
    help: "Complete UTC days whose daily analytics rollups are not built yet (built hourly)",
    registers,
    async collect() {
      this.set(await rollupLag());
    },
  });
}
