import { inBackground, backgroundSettled } from "./background.ts";
import type { Config } from "./config/index.ts";
import { database, disconnectDb, type Database } from "./db/client.ts";
import { setAfterCommit } from "./events/index.ts";
import { flushLog } from "./log/index.ts";
import { peekShared, setShared } from "./registry.ts";
import type { ShortLinkHandler } from "./redirects/http.ts";

// Everything in a Linkhop process that has a lifetime, built once by createRuntime (server.ts, the
// admin CLI, tests that call services in-process) and stopped by runtime.close() in one order:
//
//   1. background jobs stop: no new webhook claims, sweeps, maintenance or pruning; attempts
//      already running finish (the built-in scheduler waits for them)
//   2. the short-link handler and the API key cache stop listening for invalidations (their LISTEN
//      connections; the key cache stops caching)
//   3. the click pipeline writes what it still holds (counters and click events, one transaction)
//   4. background work settles: Inngest hand-offs, notices, reset mails, a running maintenance
//   5. every database pool closes (lib/db/client.ts); later use fails instead of reconnecting
//   6. the log lines gathered so far are written (lib/log/batched.ts)
//
// server.ts stops accepting connections (after /readyz has answered 503 for SHUTDOWN_DRAIN_MS) and
// waits for the requests in flight before 1, and stops the embedded PostgreSQL after 5.

export type RuntimeOptions = {
  /** the short-link handler in front of Next (server.ts) */
  serve?: boolean;
  /** the built-in scheduler or Inngest sweep, click flushing, analytics and auth maintenance */
  jobs?: boolean;
};

export type Runtime = {
  config: Config;
  database: Database;
  /** present with `serve` */
  shortLinks: ShortLinkHandler | null;
  close(): Promise<void>;
};

type Stop = () => Promise<void>;

/** The process's runtime, when one has been built. */
export function currentRuntime(): Runtime | undefined {
  return peekShared<Runtime>("runtime");
}

export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  if (peekShared<Runtime>("runtime")) throw new Error("a runtime exists already in this process");
  // a runtime closed before in this process (tests build one per file) left the pools marked final
  if (peekShared("database") === "closed") setShared("database", undefined);
  const db = database();
  const { dispatchDeliveries } = await import("./webhooks/handoff.ts");
  setAfterCommit(dispatchDeliveries);

  const stops: Stop[] = [];
  let shortLinks: ShortLinkHandler | null = null;
  let apiKeys: { close(): Promise<void> } | null = null;
  let clicks: ReturnType<typeof import("./clicks/writer.ts").startClickPipeline> | null = null;
  const { clickStore } = await import("./analytics/store/instance.ts");
  if (options.serve) {
    // one buffer and one flush for every click: link counters and click events in one transaction
    const { startClickPipeline } = await import("./clicks/writer.ts");
    clicks = startClickPipeline(db.redirects, clickStore(), config, db.url);
    const { createShortLinkHandler } = await import("./redirects/http.ts");
    shortLinks = await createShortLinkHandler({ pool: db.redirects, databaseUrl: db.url, clicks: clicks.pipeline });
    // the API authenticates from a key cache kept exact by notifications (lib/keys/cache.ts)
    const { startApiKeyCache } = await import("./keys/cache.ts");
    const keyCache = startApiKeyCache(db.url);
    await keyCache.ready;
    apiKeys = keyCache;
  }
  if (config.CLICKHOUSE_URL) {
    // ClickHouse answers reports and exports; with the jobs, the sink copies click events there
    const { startClickHouseAnalytics } = await import("./analytics/clickhouse/runtime.ts");
    stops.push(
      await startClickHouseAnalytics({ url: config.CLICKHOUSE_URL }, db.analytics, clickStore(), {
        jobs: Boolean(options.jobs),
        keepMs: config.CLICKHOUSE_PG_KEEP,
      }),
    );
  }
  if (options.jobs) {
    // analytics: the coming partitions before the first click; retention and rollups hourly
    const { startAnalyticsJobs } = await import("./analytics/jobs.ts");
    stops.push(await startAnalyticsJobs(db.analytics, clickStore(), inBackground));
    // webhooks: the built-in scheduler (or the Inngest hand-off sweep) and the daily log pruning
    const { startWebhookJobs } = await import("./webhooks/jobs.ts");
    stops.push(await startWebhookJobs());
    // link.clicked: each subscribed endpoint's cursor over the stored clicks, read as fast as it can take them
    const { startClickedReader } = await import("./clicks/clicked.ts");
    stops.push(startClickedReader(db.prismaPool));
    // auth: ended sign-in and sign-up limit windows and old reset links are dropped hourly
    const { startAuthJobs } = await import("./auth/jobs.ts");
    stops.push(startAuthJobs());
  }

  // what /metrics reads at scrape time (lib/metrics/sources.ts)
  const { metrics } = await import("./metrics/index.ts");
  const { oldestDueSeconds } = await import("./webhooks/due.ts");
  const { pendingRollupDays } = await import("./analytics/store/rollup-build.ts");
  const [pipeline, handler] = [clicks?.pipeline, shortLinks];
  metrics().setSources({
    pools: () => ({ prisma: db.prismaPool, redirects: db.redirects, analytics: db.analytics, ratelimit: db.rateLimit }),
    clickBacklog: pipeline && (() => pipeline.backlog),
    clickJournal: pipeline && (() => pipeline.journaled),
    redirectCacheEntries: handler ? () => handler.cacheEntries() : undefined,
    oldestDueDeliverySeconds: () => oldestDueSeconds(),
    rollupLagDays: () => pendingRollupDays(db.analytics),
  });

  let closing: Promise<void> | null = null;
  const runtime: Runtime = {
    config,
    database: db,
    shortLinks,
    close() {
      closing ??= (async () => {
        metrics().setSources(undefined);
        await Promise.allSettled(stops.map((stop) => stop()));
        await Promise.all([shortLinks?.close(), apiKeys?.close()]);
        await clicks?.stop();
        setAfterCommit(undefined);
        await backgroundSettled();
        await disconnectDb({ final: true });
        setShared("runtime", undefined);
        flushLog();
      })();
      return closing;
    },
  };
  setShared("runtime", runtime);
  return runtime;
}
