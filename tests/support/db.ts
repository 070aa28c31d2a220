import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** A fresh, migrated database for one test file (a clone of the template made in global setup). */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject("adminDatabaseUrl");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name} template linkhop_template`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).catch(() => {});
      await c.end();
    },
  };
}

/**
 * Points this test process at `url` for calling services directly, with the runtime the admin CLI
 * builds (lib/runtime.ts: the pools, and webhook hand-offs after each commit), no jobs.
 */
export async function useDatabaseInProcess(url: string) {
  const { createRuntime, currentRuntime } = await import("../../lib/runtime.ts");
  await currentRuntime()?.close();
  process.env.DATABASE_URL = url;
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  // pool sizes and the rest are read from the environment as the test file has set it
  const { config, resetConfig } = await import("../../lib/config/index.ts");
  resetConfig();
  await createRuntime(config());
}

/**
 * Waits until every transaction that began before this call has ended, so everything committed is
 * readable from the click-event feed (lib/analytics/store/feed.ts reads only below the oldest
 * transaction running anywhere on the server; test files running side by side share that server,
 * and their open transactions hold the horizon back). A deadline, not a sleep.
 */
export async function feedSettled(pool: { query: (text: string) => Promise<{ rows: { v: string }[] }> }, timeoutMs = 60_000) {
  const mark = BigInt((await pool.query(`select pg_current_xact_id()::text as v`)).rows[0].v);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (BigInt((await pool.query(`select pg_snapshot_xmin(pg_current_snapshot())::text as v`)).rows[0].v) > mark) return;
    if (Date.now() > deadline) throw new Error(`the click feed's horizon did not pass the writes within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `read` in a transaction of its own on `pool`, and the click-event feed rows it fetched there
 * (pg_stat_xact_*: exact, at once): how many rows a bounded read really touched.
 */
export async function feedRowsFetchedBy<T>(
  pool: pg.Pool,
  read: (client: pg.PoolClient) => Promise<T>,
): Promise<{ result: T; fetched: number }> {
  const fetched = async (client: pg.PoolClient) => {
    const { rows } = await client.query<{ n: string }>(
      `select coalesce(sum(coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0)), 0)::text as n
         from pg_stat_xact_user_tables where schemaname = 'analytics' and relname like 'click_event%'`,
    );
    return Number(rows[0].n);
  };
  const client = await pool.connect();
  try {
    await client.query("begin");
    const before = await fetched(client);
    const result = await read(client);
    const after = await fetched(client);
    await client.query("commit");
    return { result, fetched: after - before };
  } finally {
    client.release();
  }
}
