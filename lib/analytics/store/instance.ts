import pg from "pg";
import { positiveNumber } from "../../config/env.ts";
import { PostgresClickStore } from "./click-store.ts";

// The process-wide objects of analytics: its database pool and the click store over it. Shared
// through globalThis by the custom server's module graph and Next's. Nothing else creates a pool.

const g = globalThis as { __linkhopAnalyticsPool?: pg.Pool; __linkhopClickStore?: PostgresClickStore };

/** How many connections analytics' pool opens at most (ANALYTICS_POOL_SIZE, default 4). */
export function analyticsPoolSize(): number {
  return Math.round(positiveNumber(process.env.ANALYTICS_POOL_SIZE, 4));
}

/** Analytics' own small pool: a long report never holds a connection the redirect path needs. */
export function analyticsPool(): pg.Pool {
  if (!g.__linkhopAnalyticsPool) {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start through server.ts or set it");
    const pool = new pg.Pool({
      connectionString: url,
      max: analyticsPoolSize(),
      idleTimeoutMillis: 30_000,
    });
    pool.on("error", (e) => console.error(`[analytics] idle database connection failed: ${e.message}`));
    g.__linkhopAnalyticsPool = pool;
  }
  return g.__linkhopAnalyticsPool;
}

export async function closeAnalyticsPool(): Promise<void> {
  const pool = g.__linkhopAnalyticsPool;
  g.__linkhopAnalyticsPool = undefined;
  g.__linkhopClickStore = undefined;
  await pool?.end();
}

/** The process's click store. */
export function clickStore(): PostgresClickStore {
  return (g.__linkhopClickStore ??= new PostgresClickStore(analyticsPool()));
}
