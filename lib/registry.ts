// The process-wide registry: the one place where state that must exist once per process is kept.
//
// Why it is needed: one Linkhop process runs two module graphs. server.ts (and the admin CLI) load
// lib/ as compiled by the build; Next.js loads route handlers, server actions and pages from its own
// bundle, which holds a second copy of every lib/ module. A module-level variable set by one copy is
// invisible to the other, so the database pools, the parsed configuration, the caches and the work
// a clean shutdown waits for would exist twice. They live here instead, under one global key.
//
// Only lib/runtime.ts decides the lifetime of what is in here (created on first use, closed by
// runtime.close() in one documented order); everything else asks for its slot by name.

/** Every slot, with what it holds and who fills it. */
export type SharedName =
  | "config" // lib/config: the parsed environment
  | "log" // lib/log: the process's logger and its children per area
  | "log-lines" // lib/log/batched.ts: log streams with lines waiting for the turn's end
  | "plans" // lib/plans: the plan table (built in or PLANS_FILE)
  | "database" // lib/db/client.ts: the Prisma client and the pg pools
  | "runtime" // lib/runtime.ts: the process's runtime (server.ts, the admin CLI)
  | "after-commit" // lib/events: what happens to new deliveries after commit (set by the runtime)
  | "scheduler-wake" // lib/webhooks/handoff.ts: wakes the built-in scheduler (set while it runs)
  | "send-times" // lib/webhooks/pacing.ts: when this process's paced attempts last left for each endpoint
  | "background-work" // lib/background.ts: promises a clean exit waits for
  | "metrics" // lib/metrics: the Prometheus registry and the process's metrics
  | "mailer" // lib/mail: the SMTP transport
  | "inngest" // lib/webhooks/inngest-client.ts: the Inngest client
  | "webhook-attempt-batches" // lib/webhooks/attempt-batches.ts: the attempts' batched read and record
  | "dialer-pools" // lib/net/dialer.ts: kept-alive connections per checked address set
  | "resolvers" // lib/net/resolve.ts: DNS resolvers per DNS_SERVERS
  | "geo" // lib/analytics: the IP location database
  | "key-touches" // lib/keys: when this process last wrote each key's lastUsedAt
  | "api-key-cache" // lib/keys/cache.ts: key lookups kept while notifications keep them exact
  | "exports-running" // lib/analytics: CSV exports streaming now
  | "shared-reports" // lib/analytics/shared-report-cache.ts: share links' reports, kept a minute
  | "clickhouse" // lib/analytics/clickhouse: the ClickHouse client and report store (set by the runtime when CLICKHOUSE_URL is set)
  | "password-hashing"; // lib/auth/hash-gate.ts: password hashes running and waiting

const KEY = Symbol.for("linkhop.registry");
type Slots = Map<SharedName, unknown>;

function slots(): Slots {
  const g = globalThis as { [KEY]?: Slots };
  return (g[KEY] ??= new Map());
}

/** The slot's value, made by `create` on first use. */
export function shared<T>(name: SharedName, create: () => T): T {
  const all = slots();
  if (!all.has(name)) all.set(name, create());
  return all.get(name) as T;
}

/** The slot's value, or undefined when nothing has filled it. */
export function peekShared<T>(name: SharedName): T | undefined {
  return slots().get(name) as T | undefined;
}

/** Fills (or with undefined, empties) a slot. */
export function setShared<T>(name: SharedName, value: T | undefined): void {
  if (value === undefined) slots().delete(name);
  else slots().set(name, value);
}
