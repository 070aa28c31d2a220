import pg from "pg";
import { shippedMigrations } from "./migrate.ts";

// The database half of /readyz (lib/http/operations.ts): PostgreSQL answers within a second, and
// every migration this build ships (prisma/migrations) is applied. It has its own connection,
// opened by the first check and kept: a check must not wait behind a busy pool (a burst of work
// would take the process out of its load balancer, and the load onto the others), and must not
// open a connection per check. A check that fails drops the connection, so a half-open one
// (PostgreSQL gone without a word) is never asked again.

export const READY_TIMEOUT_MS = 1000;

export type DatabaseProbe = {
  /** null when ready, else why not (one line) */
  check(): Promise<string | null>;
  close(): Promise<void>;
};

export function databaseProbe(url: string, migrations = shippedMigrations(), timeoutMs = READY_TIMEOUT_MS): DatabaseProbe {
  let client: pg.Client | null = null;
  let connected: Promise<pg.Client> | null = null;
  let running: Promise<string | null> | null = null;
  let closed = false;

  const drop = () => {
    const c = client;
    client = null;
    connected = null;
    c?.end().catch(() => {});
  };

  const connect = () =>
    (connected ??= (async () => {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, keepAlive: true });
      c.on("error", () => {}); // a broken connection shows in the next check, which drops it
      client = c;
      await c.connect();
      return c;
    })());

  /** Why the database is not ready, or null; throws when PostgreSQL does not answer. */
  async function probe(): Promise<string | null> {
    const c = await connect();
    const { rows } = await c.query<{ name: string }>(
      `select migration_name as name from "_prisma_migrations" where finished_at is not null and rolled_back_at is null`,
    );
    const applied = new Set(rows.map((r) => r.name));
    const missing = migrations.filter((m) => !applied.has(m));
    return missing.length ? `database: ${missing.length} migration(s) not applied, first ${missing[0]}` : null;
  }

  async function checkInTime(): Promise<string | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([probe(), timeout]);
    } catch (e) {
      drop();
      return `database: ${(e as Error).message.split("\n")[0]}`;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    check() {
      if (closed) return Promise.resolve("shutting down");
      // checks arriving together share one query
      running ??= checkInTime().finally(() => (running = null));
      return running;
    },
    async close() {
      closed = true;
      drop();
    },
  };
}
