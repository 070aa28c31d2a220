// API throughput (`npm run bench:api`, after a build: `NEXT_DIST_DIR=.next-x node scripts/build.mjs`,
// then the same NEXT_DIST_DIR here). The real server.ts on a fresh embedded PostgreSQL; the load
// generator runs in this process (node:http, keep-alive) with BENCH_CLIENTS (default 16) clients,
// each sending its next request when the last one answered, for BENCH_SECONDS (default 5) after
// BENCH_WARMUP_SECONDS (default 1) of warm-up, in BENCH_ROUNDS rounds (default 3; median round).
//   create-link: POST /api/v1/links { url }
//   get-link:    GET /api/v1/links/{code}
// each on a plan with a rate limit (a budget too large to refuse anything: the limiter runs on every
// request) and on the same plan without a rate (no limiter), to show what the limiter costs.
// Prints figures only; it never passes or fails on timing.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../../lib/keys/index.ts";
import { startApp } from "../support/app.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const ALL = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "BulkLinks", "Webhooks"];
const PLANS = {
  plans: {
    limited: { name: "Limited", rateLimit: 1_000_000_000, liveKeys: 10, maxLinks: 1_000_000_000, webhookEndpoints: 0, features: ALL },
    unlimited: { name: "Unlimited", rateLimit: null, liveKeys: 10, maxLinks: 1_000_000_000, webhookEndpoints: 0, features: ALL },
  },
};

type Result = { name: string; requests: number; rps: number; p50: number; p99: number; statuses: Record<number, number> };

async function load(
  name: string,
  port: number,
  request: () => { method: string; path: string; body?: string },
  key: string,
  seconds: number,
): Promise<Result> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let recording = false;
  let stopped = false;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const r = request();
      const started = performance.now();
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: r.path,
          method: r.method,
          agent,
          headers: {
            authorization: `Bearer ${key}`,
            ...(r.body ? { "content-type": "application/json", "content-length": Buffer.byteLength(r.body) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            if (recording) {
              latencies.push(performance.now() - started);
              statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
            }
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.end(r.body);
    });
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (!stopped) await one();
  });
  await new Promise((r) => setTimeout(r, WARMUP * 1000));
  recording = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  recording = false;
  const elapsed = (performance.now() - t0) / 1000;
  stopped = true;
  await Promise.all(clients);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  return { name, requests: latencies.length, rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), statuses };
}

function median(results: Result[]): Result {
  return [...results].sort((a, b) => a.rps - b.rps)[Math.floor(results.length / 2)];
}

function print(r: Result) {
  console.log(
    `${r.name.padEnd(30)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   (${r.requests} requests, statuses ${JSON.stringify(r.statuses)})`,
  );
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-api-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
  await applyMigrations(embedded.url);

  // Two workspaces, one per plan, each with a key and one link to read.
  const keys: Record<string, string> = {};
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  for (const plan of ["limited", "unlimited"]) {
    const ws = await client.query(`insert into "Workspace" (slug, name, plan) values ($1, $1, $1) returning id`, [plan]);
    const key = generateApiKey();
    await client.query(`insert into "ApiKey" ("workspaceId", name, prefix, hash) values ($1, 'bench', $2, $3)`, [
      ws.rows[0].id,
      keyPrefix(key),
      hashApiKey(key),
    ]);
    await client.query(`insert into "Link" ("workspaceId", code, url) values ($1, $2, 'https://example.com/read')`, [
      ws.rows[0].id,
      `read-${plan}`,
    ]);
    keys[plan] = key;
  }
  await client.end();

  const app = await startApp(embedded.url, { PLANS_FILE: plansFile, APP_URL: "http://app.bench" });
  try {
    console.log(
      `Linkhop API benchmark: ${CLIENTS} clients, ${SECONDS} s per case after ${WARMUP} s warm-up, median of ${ROUNDS} rounds, ${os.cpus().length} cores (shared with the load generator)\n`,
    );
    let n = 0;
    const cases = [
      {
        name: "create-link (rate limited)",
        plan: "limited",
        req: () => ({ method: "POST", path: "/api/v1/links", body: JSON.stringify({ url: `https://example.com/bench/${n++}` }) }),
      },
      {
        name: "create-link (no rate limit)",
        plan: "unlimited",
        req: () => ({ method: "POST", path: "/api/v1/links", body: JSON.stringify({ url: `https://example.com/bench/${n++}` }) }),
      },
      { name: "get-link (rate limited)", plan: "limited", req: () => ({ method: "GET", path: "/api/v1/links/read-limited" }) },
      { name: "get-link (no rate limit)", plan: "unlimited", req: () => ({ method: "GET", path: "/api/v1/links/read-unlimited" }) },
    ];
    // Warm the routes up once (first requests compile and connect).
    for (const c of cases) await load(c.name, app.port, c.req, keys[c.plan], 1);
    const results = new Map<string, Result[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases)
        results.set(c.name, [...(results.get(c.name) ?? []), await load(c.name, app.port, c.req, keys[c.plan], SECONDS)]);
    }
    const med = new Map([...results].map(([k, v]) => [k, median(v)]));
    for (const r of med.values()) print(r);
    console.log("");
    for (const op of ["create-link", "get-link"]) {
      const limited = med.get(`${op} (rate limited)`)!;
      const free = med.get(`${op} (no rate limit)`)!;
      console.log(
        `${op}: rate limiter cost: throughput ratio limited/unlimited ${(limited.rps / free.rps).toFixed(2)}, p50 ${limited.p50 - free.p50 >= 0 ? "+" : ""}${(limited.p50 - free.p50).toFixed(1)} ms`,
      );
    }
  } finally {
    await app.stop();
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
