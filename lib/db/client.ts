import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { config } from "../config/index.ts";
import { peekShared, setShared } from "../registry.ts";
import { PrismaClient } from "./generated/client.ts";
import { log } from "../log/index.ts";

export type Db = InstanceType<typeof PrismaClient>;
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

// The process's database connections: one place decides how many pools there are and how large
// (lib/config). Four pools, so that no kind of work can take the connections another needs:
//   prisma     DATABASE_POOL_SIZE (10)   the app and the API (Prisma)
//   redirects  REDIRECT_POOL_SIZE (6)    the redirect path: cache misses, capped clicks, the click flush
//   analytics  ANALYTICS_POOL_SIZE (4)   reports, exports, rollups (a long report never queues a redirect)
//   rateLimit  RATE_LIMIT_POOL_SIZE (4)  the API's rate budget, with synchronous_commit=off (lib/ratelimit)
// plus the LISTEN connections of the redirect cache (lib/redirects/notify.ts) and the API key cache
// (lib/keys/cache.ts), in a process that serves (lib/runtime.ts). Pools connect on
// demand, so a process opens at most the sum plus the two (26 with the defaults), usually far fewer. They are
// kept in the process registry (one set for server.ts's module graph and Next's) and closed by
// runtime.close() (lib/runtime.ts).

export type Database = {
  url: string;
  prisma: Db;
  /** Prisma's own pool, made here so /metrics can read its counts (the adapter ends it on $disconnect) */
  prismaPool: pg.Pool;
  redirects: pg.Pool;
  analytics: pg.Pool;
  rateLimit: pg.Pool;
};

function openDatabase(url: string): Database {
  const cfg = config();
  const pool = (name: string, max: number, options?: string) => {
    const p = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, options, allowExitOnIdle: true });
    p.on("error", (e) => {
      // after end(): a connection still closing when the database server stops (its Terminate not yet
      // processed) reports the server's shutdown; nothing is lost
      if (p.ending) return;
      log("db").error({ pool: name, err: e }, `idle database connection of the ${name} pool failed`);
    });
    return p;
  };
  const prismaPool = new pg.Pool({ connectionString: url, max: cfg.DATABASE_POOL_SIZE });
  return {
    url,
    prisma: new PrismaClient({ adapter: new PrismaPg(prismaPool, { disposeExternalPool: true }) }),
    prismaPool,
    redirects: pool("redirects", cfg.REDIRECT_POOL_SIZE),
    analytics: pool("analytics", cfg.ANALYTICS_POOL_SIZE),
    // every request of a key updates the same row: waiting for the WAL flush while holding its lock
    // would queue a busy key's requests behind the disk (lib/ratelimit says what a crash can cost)
    rateLimit: pool("ratelimit", cfg.RATE_LIMIT_POOL_SIZE, "-c synchronous_commit=off"),
  };
}

/** The process's connections to DATABASE_URL, opened on first use. */
export function database(): Database {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start through server.ts or set it");
  const open = peekShared<Database | "closed">("database");
  if (open === "closed") throw new Error("the database connections are closed: the process is stopping");
  if (open?.url === url) return open;
  // a test file that points the process at another database: the old connections go
  if (open) void endDatabase(open);
  const fresh = openDatabase(url);
  setShared("database", fresh);
  return fresh;
}

/** The Prisma client. */
export function db(): Db {
  return database().prisma;
}

/**
 * Closes every pool of the process. A later database() opens them again, unless `final` (the
 * runtime's close: work still running at exit fails instead of opening connections that the
 * stopping database server would break).
 */
export async function disconnectDb(options: { final?: boolean } = {}): Promise<void> {
  const open = peekShared<Database | "closed">("database");
  setShared("database", options.final ? "closed" : undefined);
  if (open && open !== "closed") await endDatabase(open);
}

async function endDatabase(d: Database): Promise<void> {
  // The adapter ends Prisma's pool only if Prisma itself connected; the webhook engine's statements
  // (lib/webhooks/sql.ts) use that pool directly, so it may hold connections Prisma never opened.
  const prisma = d.prisma.$disconnect().finally(() => (d.prismaPool.ending ? undefined : d.prismaPool.end()));
  await Promise.allSettled([prisma, d.redirects.end(), d.analytics.end(), d.rateLimit.end()]);
}

/** A unique-constraint violation (P2002), and which constraint when the driver says. */
export function uniqueViolation(e: unknown): { constraint: string } | null {
  const err = e as { code?: string; meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: unknown } } } };
  if (err?.code !== "P2002") return null;
  const c = err.meta?.driverAdapterError?.cause?.constraint ?? err.meta?.target ?? "";
  return { constraint: typeof c === "string" ? c : JSON.stringify(c) };
}
