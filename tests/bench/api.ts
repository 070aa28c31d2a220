// API throughput beside its floors (`npm run bench:api`, after a build: `npm run build`, or
// `NEXT_DIST_DIR=.next-x node scripts/build.mjs` and the same NEXT_DIST_DIR here). The real server.ts
// on a fresh embedded PostgreSQL; the load generator (tests/bench/http-load.ts, raw keep-alive
// sockets) runs in this process with BENCH_CLIENTS (default 16) clients, each sending its next
// request when the last one answered, for BENCH_SECONDS (default 5) after BENCH_WARMUP_SECONDS
// (default 1), in BENCH_ROUNDS rounds (default 3; each case reports its median round; rounds run
// every case back to back, so a change in the machine's other load hits all of them).
//
// The two floors, measured in the same run:
//   route-handler floor  GET /api/bench-floor in this server: a route handler of the same build that
//                        answers a constant JSON body (app/api/bench-floor), through Next.js; every API
//                        case is printed with its throughput as a ratio of this one. The /api/v1 cases
//                        are answered by server.ts's lane (lib/api/lane.ts), without Next's request
//                        machinery, so they can pass 1.00
//   bare node:http       a node:http server answering the same constant: the machine's floor
//   next start floor     the same route under a plain `next start` of the same build (BENCH_NEXT_START=0
//                        leaves it out): what server.ts costs in front of Next
// The API cases, on a plan with a rate limit too large to refuse anything (the limiter runs on every
// request) and plenty of links:
//   401                  GET /api/v1/links with no key
//   get-link             GET /api/v1/links/{code}
//   list                 GET /api/v1/links?size=10
//   create-link          POST /api/v1/links { url } (16 clients in one workspace: one allowance row)
//                        on each kind of plan and input, each in its own workspace:
//     (a)                a plan without webhooks (the case above)
//     (b) webhooks ...   a plan with webhooks, no endpoint in the workspace
//     (c) one endpoint   a plan with webhooks and one enabled endpoint of all events: each create
//                        also sends one delivery to a receiver on loopback (the bare node:http server
//                        below), whose send is in the server's CPU too
//     (c') sends held    (c) while the receiver holds its requests: the engine has its turns of the
//                        endpoint in flight and claims no more (lib/webhooks/scheduler.ts wake), so
//                        the measured seconds are the creates' own (their event and delivery rows);
//                        the receiver answers after the case and the backlog is sent before the next.
//                        (c) less (c') is printed: what sending one delivery costs
//     (d) tags           { url, tags: [2 names] } on the plan of (a), the tags already there
//     (e) password       { url, password } on the plan of (a): one scrypt hash per create, on libuv's
//                        pool (the server's CPU is printed with its main thread's apart; "less its
//                        hash" takes off what the other threads spent beyond (a)'s)
//     (a) at (e)'s pace  (a) paced to (e)'s throughput of the same round: few creates a second share
//                        the same fixed costs (timers, wake-ups, the poll) as (e)'s, so (e) less its
//                        hash is compared with this one too
//   ... (no rate limit)  get-link and create-link on the same plan without a rate: the limiter's cost
// then, with one client: the floor, get-link and create-link (latency without queueing), and (c')
// (what a create's event adds without 16 clients queueing on the workspace's allowance row).
//
// Per case: CPU per request of the server, PostgreSQL (all its processes) and the load generator
// (Linux /proc, as bench:redirect), and SQL statements per request: the embedded PostgreSQL runs with
// pg_stat_statements, and the calls of every statement (BEGIN and COMMIT included, this script's own
// reads excluded) during the measured seconds are divided by the requests answered in them. Background
// jobs' statements in those seconds count too (a handful a second: the scheduler's poll, the listener's
// health check). BENCH_SQL_DETAIL=1 prints each case's statements per request by statement, with
// PostgreSQL's execution time and WAL records (a row or index entry written is one) per request, and
// the sequential scans that read at least a row per request, by table. The "CPU
// ratio" beside the throughput ratio is the floor's server + PostgreSQL CPU per request over the
// case's: what a CPU-bound run on a quiet machine would show. BENCH_CASES=floor,get-link,... runs only the cases whose names start with one of
// those ("=name": that case alone); BENCH_SERVER_CPU_PROFILE=<file.cpuprofile> samples server.ts from start to exit.
// The creates are compared by CPU per create (the server's alone, and server + PostgreSQL), above
// the CPU both spend at rest, each round's to that round's cheapest create; the median of the rounds
// is printed with each round's. Between cases PostgreSQL is vacuumed and checkpointed, outside the
// measured seconds. The database starts as a workspace in use has it: links to read, and a day of
// delivered webhook history (seedDeliveryHistory).
// Prints figures only; it never passes or fails on timing.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { hashPassword } from "../../lib/auth/password.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../../lib/keys/index.ts";
import { startApp } from "../support/app.ts";
import { coresBusy, cpuSnapshot, postmasterPid, serverNodeOptions, type CpuProbe } from "./cpu.ts";
import { load, type BenchRequest, type LoadResult } from "./http-load.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_CASES?.split(",").filter(Boolean);
const NEXT_START = process.env.BENCH_NEXT_START !== "0";
const CPU_PROFILE = process.env.BENCH_SERVER_CPU_PROFILE;
const IDLE_SECONDS = 3;

const ALL = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "BulkLinks", "Webhooks"];
const PLANS = {
  plans: {
    limited: { name: "Limited", rateLimit: 1_000_000_000, liveKeys: 10, maxLinks: 1_000_000_000, webhookEndpoints: 0, features: ALL },
    unlimited: { name: "Unlimited", rateLimit: null, liveKeys: 10, maxLinks: 1_000_000_000, webhookEndpoints: 0, features: ALL },
    hooks: {
      name: "Hooks",
      rateLimit: 1_000_000_000,
      liveKeys: 10,
      maxLinks: 1_000_000_000,
      webhookEndpoints: 5,
      webhookRatePerSecond: 10_000,
      features: ALL,
    },
  },
};
/** Workspaces by slug, and their plans; "hooked" gets one endpoint (prepareDatabase). */
const WORKSPACES = { limited: "limited", unlimited: "unlimited", hooks: "hooks", hooked: "hooks" } as const;
const BENCH_PASSWORD = "bench-password-1";
const FLOOR_BODY = JSON.stringify({ ok: true });

// ---- the machine's floor: node:http answering the route handler's constant --------------------

// As case (c)'s receiver it holds the requests to /hook while told to ({ hold: true } over IPC,
// answered { holding }), and answers them when told { hold: false }.
const BARE_SERVER = `
const http = require("node:http");
const body = ${JSON.stringify(FLOOR_BODY)};
const answer = (res) => {
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
};
let holding = false;
let held = [];
const server = http.createServer((req, res) => {
  if (holding && req.url.startsWith("/hook")) held.push(res);
  else answer(res);
});
process.on("message", (m) => {
  holding = m.hold;
  if (!holding) held.splice(0).forEach(answer);
  process.send({ holding });
});
server.keepAliveTimeout = 65000;
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
process.on("SIGTERM", () => process.exit(0));
`;

/** Tells the bare server to hold (or to answer) the webhook requests, once it has taken it in. */
function holdHooks(child: ChildProcess, hold: boolean): Promise<void> {
  return new Promise((resolve) => {
    child.once("message", () => resolve());
    child.send({ hold });
  });
}

function startBareServer(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", BARE_SERVER], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve) => child.once("message", (m: { port: number }) => resolve({ port: m.port, child })));
}

// ---- the same build under a plain `next start` ----------------------------------------------

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startNextStart(env: Record<string, string>): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const child = spawn(process.execPath, [nextBin, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/bench-floor`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { port, child };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("next start did not answer in 60 s");
    await new Promise((r) => setTimeout(r, 200));
  }
}

// ---- the database: pg_stat_statements on, two workspaces with keys and links ------------------

/** The key prefix of a table's sequential scans among StatementStats. */
const SEQ_SCAN = "\u0000seq scan ";
/** pg_stat_statements per statement: calls, execution ms, rows, WAL records. */
type StatementStats = Map<string, { calls: number; ms: number; rows: number; wal: number; fpi: number; walBytes: number }>;

/**
 * A day of delivered events behind the workspace's endpoint (HISTORY of each: event, delivery,
 * attempt), so the ANALYZE below sees the webhook tables as a workspace in use has them. Analyzed
 * empty, PostgreSQL would plan the foreign-key checks of every new delivery (on WebhookEvent) and
 * attempt (on Delivery) as sequential scans, cached by each connection until autovacuum analyzes
 * again: each create would then read every event written so far (measured: a create's PostgreSQL
 * CPU grew 937, 1,243, 1,823 µs over three rounds of 3,000).
 */
const HISTORY = 2000;
async function seedDeliveryHistory(client: pg.Client, workspaceId: number) {
  await client.query(
    `insert into "WebhookEvent" ("id", "workspaceId", "type", "createdAt", "body")
     select 'evt_history_' || i, $1, 'link.created', now() - interval '1 day' + i * interval '40 ms', '{}' from generate_series(1, $2::int) i`,
    [workspaceId, HISTORY],
  );
  await client.query(
    `insert into "Delivery" ("eventId", "endpointId", "status", "attempts", "createdAt", "updatedAt")
     select v."id", e."id", 'delivered', 1, v."createdAt", v."createdAt"
       from "WebhookEvent" v join "WebhookEndpoint" e on e."workspaceId" = v."workspaceId" where v."workspaceId" = $1`,
    [workspaceId],
  );
  await client.query(
    `insert into "DeliveryAttempt" ("deliveryId", "number", "startedAt", "durationMs", "statusCode", "outcome")
     select d."id", 1, d."createdAt", 3, 200, 'delivered' from "Delivery" d join "WebhookEndpoint" e on e."id" = d."endpointId"
      where e."workspaceId" = $1`,
    [workspaceId],
  );
}

async function prepareDatabase(dir: string, receiverUrl: string) {
  let embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
  const admin = new pg.Client({ connectionString: embedded.url });
  await admin.connect();
  await admin.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
  await admin.end();
  await embedded.stop();
  embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
  await applyMigrations(embedded.url);
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  await client.query(`create extension if not exists pg_stat_statements`);
  const keys: Record<string, string> = {};
  for (const [plan, planId] of Object.entries(WORKSPACES)) {
    const ws = await client.query(`insert into "Workspace" (slug, name, plan) values ($1, $1, $2) returning id`, [plan, planId]);
    if (plan === "hooked") {
      await client.query(`insert into "WebhookEndpoint" ("workspaceId", url, secret) values ($1, $2, 'whsec_bench')`, [
        ws.rows[0].id,
        receiverUrl,
      ]);
      await seedDeliveryHistory(client, ws.rows[0].id);
    }
    // the tags of case (d), there before it starts
    await client.query(`insert into "Tag" ("workspaceId", name, "nameKey") values ($1, 'Spring', 'spring'), ($1, 'Sale', 'sale')`, [
      ws.rows[0].id,
    ]);
    const key = generateApiKey();
    await client.query(`insert into "ApiKey" ("workspaceId", name, prefix, hash) values ($1, 'bench', $2, $3)`, [
      ws.rows[0].id,
      keyPrefix(key),
      hashApiKey(key),
    ]);
    // one link to read, and 200 more so a list page is full
    await client.query(`insert into "Link" ("workspaceId", code, url) values ($1, $2, 'https://example.com/read')`, [
      ws.rows[0].id,
      `read-${plan}`,
    ]);
    await client.query(
      `insert into "Link" ("workspaceId", code, url) select $1, $2 || i, 'https://example.com/l/' || i from generate_series(1, 200) i`,
      [ws.rows[0].id, `l-${plan}-`],
    );
    keys[plan] = key;
  }
  await client.query(`analyze`);
  // the statements counter: every call but this client's own reads (and its reset)
  const statements = async (): Promise<StatementStats> => {
    const { rows } = await client.query<{ query: string; n: string; ms: number; rows: string; wal: string; fpi: string; bytes: string }>(
      `select query, sum(calls)::bigint as n, sum(total_exec_time)::float8 as ms, sum(rows)::bigint as rows,
              sum(wal_records)::bigint as wal, sum(wal_fpi)::bigint as fpi, sum(wal_bytes)::bigint as bytes
       from pg_stat_statements
       where dbid = (select oid from pg_database where datname = current_database()) and query not ilike '%pg_stat_statements%'
       group by query`,
    );
    return new Map(
      rows.map((r) => [
        r.query,
        { calls: Number(r.n), ms: r.ms, rows: Number(r.rows), wal: Number(r.wal), fpi: Number(r.fpi), walBytes: Number(r.bytes) },
      ]),
    );
  };
  // sequential scans by table (as statements named SEQ_SCAN + table: calls, rows read): one that
  // reads a growing table per request is a plan to look at
  const seqScans = async (): Promise<StatementStats> => {
    const { rows } = await client.query<{ relname: string; n: string; tuples: string }>(
      `select relname, seq_scan::bigint as n, seq_tup_read::bigint as tuples from pg_stat_user_tables`,
    );
    return new Map(
      rows.map((r) => [SEQ_SCAN + r.relname, { calls: Number(r.n), ms: 0, rows: Number(r.tuples), wal: 0, fpi: 0, walBytes: 0 }]),
    );
  };
  // what a case's writes leave to PostgreSQL's background (dead rows to vacuum, dirty pages to
  // write) is done before the next case, so it is not counted in the next case's seconds
  const settle = async () => {
    await client.query("vacuum");
    await client.query("checkpoint");
  };
  const deliveriesSent = async () => {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const { rows } = await client.query<{ n: number }>(`select count(*)::int as n from "Delivery" where status = 'pending'`);
      if (rows[0].n === 0) return;
    }
    console.log("(deliveries still pending after 120 s)");
  };
  return {
    embedded,
    keys,
    statements,
    seqScans,
    deliveriesSent,
    settle,
    close: () => client.end(),
    postmasterPid: postmasterPid(path.join(dir, "pg", "pg")),
  };
}

// ---- the run ----------------------------------------------------------------------------------

type Case = {
  name: string;
  port: "app" | "bare" | "next";
  clients: number;
  next: () => BenchRequest;
  /** run before the warm-up and after the measured seconds */
  around?: { before: () => Promise<void>; after: () => Promise<void> };
  /** paced at the throughput the named case had in the same round (it runs after it) */
  paceOf?: string;
};
type Result = LoadResult & { sql: StatementStats };

/** What each statement did during the measured seconds: the differences of two snapshots. */
function statementsDuring(before: StatementStats, after: StatementStats): StatementStats {
  const out: StatementStats = new Map();
  for (const [q, a] of after) {
    const b = before.get(q) ?? { calls: 0, ms: 0, rows: 0, wal: 0, fpi: 0, walBytes: 0 };
    if (a.calls > b.calls)
      out.set(q, {
        calls: a.calls - b.calls,
        ms: a.ms - b.ms,
        rows: a.rows - b.rows,
        wal: a.wal - b.wal,
        fpi: a.fpi - b.fpi,
        walBytes: a.walBytes - b.walBytes,
      });
  }
  return out;
}

/** The CPU seconds of one scrypt hash as a link password's (this process, so the server's pool is left alone). */
async function hashCpuSeconds(): Promise<number> {
  await hashPassword(BENCH_PASSWORD, "bulk");
  const before = process.cpuUsage();
  const n = 20;
  for (let i = 0; i < n; i++) await hashPassword(BENCH_PASSWORD, "bulk");
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6 / n;
}

/** Server and PostgreSQL CPU per request, in µs. */
const cpuPerRequest = (r: LoadResult) => (r.cpu ? ((r.cpu.server + r.cpu.postgres) / r.rps) * 1e6 : NaN);

function print(r: LoadResult, floor: LoadResult | undefined) {
  const us = (cores: number) => `${((cores / r.rps) * 1e6).toFixed(0)} µs`;
  const cpuRatio = floor ? (cpuPerRequest(floor) / cpuPerRequest(r)).toFixed(2) : "";
  const others = Object.entries(r.statuses).filter(([s]) => !/^2/.test(s) && s !== "401");
  const ratio = floor ? (r.rps / floor.rps).toFixed(2) : "";
  console.log(
    `${r.name.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  ${ratio.padStart(5)} of floor   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms` +
      (r.cpu
        ? `   CPU/req: server ${us(r.cpu.server)} (main thread ${us(r.cpu.serverMainThread)}), postgres ${us(r.cpu.postgres)}, generator ${us(r.cpu.generator)}`
        : "") +
      ` (CPU ratio ${cpuRatio})` +
      (r.counted !== null ? `   SQL/req ${(r.counted / r.requests).toFixed(2)}` : "") +
      (r.errors || others.length ? `   (${r.errors} socket errors, statuses ${JSON.stringify(r.statuses)})` : ""),
  );
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-api-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  // the bare server is also case (c)'s webhook receiver (http on loopback: WEBHOOK_ALLOW_PRIVATE)
  const bare = await startBareServer();
  const db = await prepareDatabase(dir, `http://127.0.0.1:${bare.port}/hook`);
  const appEnv = { PLANS_FILE: plansFile, APP_URL: "http://app.bench", DATABASE_URL: db.embedded.url, WEBHOOK_ALLOW_PRIVATE: "1" };
  const app = await startApp(db.embedded.url, { ...appEnv, NODE_OPTIONS: serverNodeOptions(CPU_PROFILE) ?? process.env.NODE_OPTIONS });
  const nextStart = NEXT_START
    ? await startNextStart({ ...appEnv, AUTH_SECRET: "test-secret-test-secret-test-secret", AUTH_TRUST_HOST: "true" })
    : null;
  process.on("exit", () => {
    bare.child.kill();
    nextStart?.child.kill();
    app.process.kill("SIGKILL");
  });
  const ports = { app: app.port, bare: bare.port, next: nextStart?.port ?? 0 };
  const probes: Record<Case["port"], CpuProbe> = {
    app: { serverPid: app.process.pid!, postmasterPid: db.postmasterPid },
    bare: { serverPid: bare.child.pid!, postmasterPid: db.postmasterPid },
    next: { serverPid: nextStart?.child.pid ?? 0, postmasterPid: db.postmasterPid },
  };
  const auth = (plan: string) => ({ Authorization: `Bearer ${db.keys[plan]}` });
  let n = 0;
  const create =
    (plan: string, more: object = {}) =>
    () => ({
      method: "POST",
      path: "/api/v1/links",
      headers: auth(plan),
      body: JSON.stringify({ url: `https://example.com/bench/${n++}`, ...more }),
    });
  const floor = () => ({ method: "GET", path: "/api/bench-floor" });
  // (c'): the receiver holds its requests for the case's seconds
  const receiverHeld = { before: () => holdHooks(bare.child, true), after: () => holdHooks(bare.child, false) };
  const all: Case[] = [
    { name: "floor: route handler (server.ts)", port: "app", clients: CLIENTS, next: floor },
    { name: "floor: bare node:http", port: "bare", clients: CLIENTS, next: floor },
    ...(nextStart ? [{ name: "floor: route handler (next start)", port: "next" as const, clients: CLIENTS, next: floor }] : []),
    { name: "401 (no key)", port: "app", clients: CLIENTS, next: () => ({ method: "GET", path: "/api/v1/links" }) },
    {
      name: "get-link",
      port: "app",
      clients: CLIENTS,
      next: () => ({ method: "GET", path: "/api/v1/links/read-limited", headers: auth("limited") }),
    },
    {
      name: "list (size 10)",
      port: "app",
      clients: CLIENTS,
      next: () => ({ method: "GET", path: "/api/v1/links?size=10", headers: auth("limited") }),
    },
    { name: "create-link", port: "app", clients: CLIENTS, next: create("limited") },
    { name: "create-link (b) webhooks, none", port: "app", clients: CLIENTS, next: create("hooks") },
    { name: "create-link (c) one endpoint", port: "app", clients: CLIENTS, next: create("hooked") },
    {
      name: "create-link (c') sends held",
      port: "app",
      clients: CLIENTS,
      next: create("hooked"),
      around: receiverHeld,
    },
    { name: "create-link (d) tags", port: "app", clients: CLIENTS, next: create("limited", { tags: ["spring", "Sale"] }) },
    { name: "create-link (e) password", port: "app", clients: CLIENTS, next: create("limited", { password: BENCH_PASSWORD }) },
    {
      name: "create-link (a) at (e)'s pace",
      port: "app",
      clients: CLIENTS,
      next: create("limited"),
      paceOf: "create-link (e) password",
    },
    {
      name: "get-link (no rate limit)",
      port: "app",
      clients: CLIENTS,
      next: () => ({ method: "GET", path: "/api/v1/links/read-unlimited", headers: auth("unlimited") }),
    },
    { name: "create-link (no rate limit)", port: "app", clients: CLIENTS, next: create("unlimited") },
    { name: "1 client: floor", port: "app", clients: 1, next: floor },
    {
      name: "1 client: get-link",
      port: "app",
      clients: 1,
      next: () => ({ method: "GET", path: "/api/v1/links/read-limited", headers: auth("limited") }),
    },
    { name: "1 client: create-link", port: "app", clients: 1, next: create("limited") },
    {
      name: "1 client: create-link (c')",
      port: "app",
      clients: 1,
      next: create("hooked"),
      around: receiverHeld,
    },
  ];
  const cases = all.filter(
    (c) =>
      !ONLY ||
      c.name.startsWith("floor: route handler (server") ||
      ONLY.some((o) => (o.startsWith("=") ? c.name === o.slice(1) : c.name.startsWith(o))),
  );

  console.log(
    `Linkhop API benchmark: ${CLIENTS} clients, ${SECONDS} s per case after ${WARMUP} s warm-up, median of ${ROUNDS} rounds, ` +
      `${os.cpus().length} cores shared with the load generator (load average now ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}), Node ${process.version}\n`,
  );
  const hashSeconds = await hashCpuSeconds();
  try {
    const run = async (c: Case, seconds: number, ratePerSecond?: number): Promise<Result> => {
      const snapshots: StatementStats[] = [];
      await c.around?.before();
      const r = await load({
        name: c.name,
        port: ports[c.port],
        clients: c.clients,
        warmupSeconds: WARMUP,
        seconds,
        ratePerSecond,
        next: c.next,
        probe: probes[c.port],
        during:
          c.port === "bare"
            ? undefined
            : async () => {
                const s = await db.statements();
                snapshots.push(new Map([...s, ...(await db.seqScans())]));
                return new Map([...s].map(([q, v]) => [q, v.calls]));
              },
      });
      await c.around?.after();
      // case (c)'s deliveries still being sent would be the next case's work: wait for them
      await db.deliveriesSent();
      await db.settle();
      return { ...r, sql: snapshots.length === 2 ? statementsDuring(snapshots[0], snapshots[1]) : new Map() };
    };
    // first requests compile routes and open connections
    for (const c of cases) await run(c, 1);
    // the server and PostgreSQL at rest (the scheduler's poll, timers, PostgreSQL's own processes):
    // taken off each create's CPU below, which matters where few requests share a second ((e))
    // (after the warm-up's last requests, a password's hashes among them, are done)
    await new Promise((r) => setTimeout(r, 2000));
    const idleBefore = cpuSnapshot(probes.app);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idle = coresBusy(idleBefore, cpuSnapshot(probes.app), IDLE_SECONDS);
    const results = new Map<string, Result[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of cases) {
        const pace = c.paceOf ? results.get(c.paceOf)?.at(-1)?.rps : undefined;
        results.set(c.name, [...(results.get(c.name) ?? []), await run(c, SECONDS, pace)]);
      }
      console.log(`round ${round}/${ROUNDS} done (load average ${os.loadavg()[0].toFixed(1)})`);
    }
    const median = (list: Result[]) => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
    const med = new Map([...results].map(([k, v]) => [k, median(v)]));
    const routeFloor = med.get("floor: route handler (server.ts)");
    const oneFloor = med.get("1 client: floor");
    console.log(`\nmedian of ${ROUNDS} round(s); "of floor" = throughput / the route-handler floor's in this server:`);
    for (const c of cases) print(med.get(c.name)!, c.clients === 1 ? oneFloor : routeFloor);
    console.log(
      `("CPU ratio": the floor's server + PostgreSQL CPU per request / the case's: the throughput ratio a CPU-bound run would show, less sensitive to other load on the machine)`,
    );
    if (process.env.BENCH_SQL_DETAIL === "1") {
      console.log("\nSQL statements per request, by statement (median round): calls, PostgreSQL execution µs, WAL records:");
      console.log("(full-page images: a page's first change after a checkpoint is written whole, 8 KB, to the WAL)");
      for (const c of cases.filter((x) => x.port !== "bare")) {
        const r = med.get(c.name)!;
        const per = (v: number) => v / r.requests;
        const statements = [...r.sql].filter(([q]) => !q.startsWith(SEQ_SCAN));
        const total = statements.reduce(
          (t, [, v]) => ({ ms: t.ms + v.ms, wal: t.wal + v.wal, fpi: t.fpi + v.fpi, bytes: t.bytes + v.walBytes }),
          {
            ms: 0,
            wal: 0,
            fpi: 0,
            bytes: 0,
          },
        );
        console.log(
          `  ${c.name}: ${(per(total.ms) * 1000).toFixed(0)} µs executing, ${per(total.wal).toFixed(1)} WAL records, ${per(total.fpi).toFixed(2)} full-page images, ${per(total.bytes).toFixed(0)} WAL bytes per request`,
        );
        const scans = [...r.sql].filter(([q, v]) => q.startsWith(SEQ_SCAN) && per(v.rows) >= 1);
        for (const [table, v] of scans)
          console.log(
            `    sequential scans of ${table.slice(SEQ_SCAN.length)}: ${per(v.calls).toFixed(2)} per request, ${per(v.rows).toFixed(0)} rows read per request`,
          );
        for (const [query, v] of statements.sort((a, b) => b[1].calls - a[1].calls).slice(0, 8))
          console.log(
            `    ${per(v.calls).toFixed(2).padStart(6)} ${(per(v.ms) * 1000).toFixed(0).padStart(5)} µs ${per(v.wal).toFixed(1).padStart(5)} WAL  ${query.replace(/\s+/g, " ").slice(0, 100)}`,
          );
      }
    }
    const rounds = (name: string) =>
      results.get(name)?.map((r, i) => (r.rps / results.get("floor: route handler (server.ts)")![i].rps).toFixed(2));
    console.log("\nper-round ratios to the route-handler floor:");
    for (const c of cases.filter((x) => x.clients > 1)) console.log(`  ${c.name.padEnd(34)} ${rounds(c.name)?.join(" ")}`);
    console.log(`one scrypt hash (a link password's): ${(hashSeconds * 1e6).toFixed(0)} µs CPU in this process`);
    // the creates on plans with a rate, as every plan but this bench's "unlimited" has
    const createCases = cases.filter((c) => c.name.startsWith("create-link") && !c.name.includes("no rate") && c.clients > 1 && !c.paceOf);
    // Server + PostgreSQL CPU per create. (e)'s scrypt runs on libuv's pool, off the main thread:
    // "less its hash" takes off what its other threads spent beyond those of the same round's (a)
    // (every extra cycle off the main thread is counted as the hash's, which flatters (e) slightly).
    const otherThreads = (r: LoadResult) => (r.cpu!.server - r.cpu!.serverMainThread) / r.rps;
    // a create's CPU, server alone or server + PostgreSQL, per create, above the CPU at rest
    const perCreate = (r: LoadResult, a: LoadResult | undefined, withPostgres: boolean) => {
      if (!r.cpu) return NaN;
      const server = r.cpu.server - (idle?.server ?? 0);
      const postgres = withPostgres ? r.cpu.postgres - (idle?.postgres ?? 0) : 0;
      const hash = r.name.includes("password") && a?.cpu ? otherThreads(r) - otherThreads(a) : 0;
      return (server + postgres) / r.rps - hash;
    };
    // each round's ratios to that round's cheapest create (the cases of a round run back to back), and their median
    const ratios = (withPostgres: boolean) => {
      const out = new Map(createCases.map((c) => [c.name, [] as number[]]));
      for (let i = 0; i < ROUNDS; i++) {
        const a = results.get("create-link")?.[i];
        const round = createCases.map((c) => ({ name: c.name, us: perCreate(results.get(c.name)![i], a, withPostgres) }));
        const cheapest = Math.min(...round.filter((x) => !x.name.includes("password")).map((x) => x.us));
        for (const x of round) out.get(x.name)!.push(x.us / cheapest);
      }
      return out;
    };
    const serverRatios = ratios(false);
    const bothRatios = ratios(true);
    const middle = (list: number[]) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
    const shown = (list: number[]) => `${middle(list).toFixed(2)} (${list.map((x) => x.toFixed(2)).join(" ")})`;
    if (idle)
      console.log(
        `at rest: server ${(idle.server * 1000).toFixed(1)} ms, PostgreSQL ${(idle.postgres * 1000).toFixed(1)} ms of CPU a second (taken off below)`,
      );
    console.log("CPU per create / the same round's cheapest create's, median (each round), and PostgreSQL's CPU per create:");
    for (const c of createCases) {
      const a = med.get("create-link");
      const r = med.get(c.name)!;
      const pg = r.cpu ? `${(((r.cpu.postgres - (idle?.postgres ?? 0)) / r.rps) * 1e6).toFixed(0)} µs` : "";
      const hash =
        c.name.includes("password") && a?.cpu && r.cpu
          ? `; less its hash (its pool threads' CPU beyond (a)'s: ${((otherThreads(r) - otherThreads(a)) * 1e6).toFixed(0)} µs)`
          : "";
      console.log(
        `  ${c.name.padEnd(34)} server ${shown(serverRatios.get(c.name)!)}, server + PostgreSQL ${shown(bothRatios.get(c.name)!)}; PostgreSQL ${pg}${hash}`,
      );
    }
    // (e) beside (a) at the same throughput: as few creates a second share the same fixed costs
    // (timers, wake-ups, the poll), and the hash's threads' CPU beyond the paced (a)'s is taken off
    const paced = results.get("create-link (a) at (e)'s pace");
    const hashed = results.get("create-link (e) password");
    if (paced && hashed) {
      const list = (withPostgres: boolean) =>
        hashed.map((r, i) => perCreate(r, paced[i], withPostgres) / perCreate(paced[i], undefined, withPostgres));
      console.log(
        `  (e) less its hash / (a) at (e)'s pace (${paced.map((r) => r.rps.toFixed(0)).join(", ")} creates/s): server ${shown(list(false))}, server + PostgreSQL ${shown(list(true))}`,
      );
    }
    const sending = med.get("create-link (c) one endpoint");
    const held = med.get("create-link (c') sends held");
    if (sending?.cpu && held?.cpu) {
      const less = (k: "server" | "postgres") => ((sending.cpu![k] / sending.rps - held.cpu![k] / held.rps) * 1e6).toFixed(0);
      console.log(`  sending one delivery, (c) less (c'): server ${less("server")} µs, PostgreSQL ${less("postgres")} µs`);
    }
    const created = med.get("create-link");
    if (created) console.log(`create-link at ${CLIENTS} clients in one workspace: p99 / p50 = ${(created.p99 / created.p50).toFixed(2)}`);
    const oneGet = med.get("1 client: get-link");
    const oneCreate = med.get("1 client: create-link");
    if (oneFloor && oneGet) console.log(`1 client: get-link p50 - floor p50 = ${(oneGet.p50 - oneFloor.p50).toFixed(2)} ms`);
    if (oneFloor && oneCreate) console.log(`1 client: create-link p50 - floor p50 = ${(oneCreate.p50 - oneFloor.p50).toFixed(2)} ms`);
    // one client queues on nothing: the CPU a create's event adds to it, without 16 clients
    // waiting on the workspace's allowance row (which the longer statement holds longer)
    const oneHeld = results.get("1 client: create-link (c')");
    const oneCreates = results.get("1 client: create-link");
    if (oneCreates && oneHeld) {
      const list = oneHeld.map((r, i) => perCreate(r, undefined, true) / perCreate(oneCreates[i], undefined, true));
      console.log(`1 client: create-link (c') server + PostgreSQL CPU / create-link's, as above: ${shown(list)}`);
    }
    const viaNext = med.get("floor: route handler (next start)");
    if (routeFloor && viaNext)
      console.log(`route-handler floor: server.ts / next start = ${(routeFloor.rps / viaNext.rps).toFixed(2)} (throughput)`);
  } finally {
    bare.child.kill();
    nextStart?.child.kill();
    await app.stop();
    await db.close();
    await db.embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
