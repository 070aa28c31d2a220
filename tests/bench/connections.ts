// Database connections one app process opens (`npm run bench:connections`, after a build): the real
// server on a fresh embedded PostgreSQL, driven for BENCH_SECONDS (default 4) per phase by
// BENCH_CLIENTS (default 48) keep-alive clients: short links (cache misses over 300 codes, a third
// of them capped, so every request of those is a database round trip), API reads and creates through
// the rate limiter, analytics reports, then all three at once. pg_stat_activity is sampled every
// 20 ms: the peak of the server's connections per phase, and after it has stopped (none left).
// Prints figures only; it never passes or fails.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../../lib/keys/index.ts";
import { startApp } from "../support/app.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 48);
const CODES = 300;
const ALL = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "BulkLinks", "Webhooks"];
const PLANS = {
  plans: { bench: { name: "Bench", rateLimit: 1_000_000_000, liveKeys: 10, maxLinks: 1_000_000_000, webhookEndpoints: 0, features: ALL } },
};

type Request = { path: string; method?: string; body?: string; host?: string };

/** `CLIENTS` clients sending `next()` back to back for `seconds`. */
async function drive(port: number, key: string, next: () => Request, seconds: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  let stop = false;
  let done = 0;
  const one = (r: Request) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: r.path,
          method: r.method ?? "GET",
          agent,
          headers: {
            host: r.host ?? "app.bench",
            authorization: `Bearer ${key}`,
            ...(r.body ? { "content-type": "application/json", "content-length": Buffer.byteLength(r.body) } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            done++;
            resolve();
          });
        },
      );
      req.on("error", () => resolve());
      req.end(r.body);
    });
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (!stop) await one(next());
  });
  await new Promise((r) => setTimeout(r, seconds * 1000));
  stop = true;
  await Promise.all(clients);
  agent.destroy();
  return done;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-connections-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
  const sampler = new pg.Client({ connectionString: embedded.url });
  try {
    await applyMigrations(embedded.url);
    await sampler.connect();
    const ws = await sampler.query(`insert into "Workspace" (slug, name, plan) values ('bench', 'Bench', 'bench') returning id`);
    const key = generateApiKey();
    await sampler.query(`insert into "ApiKey" ("workspaceId", name, prefix, hash) values ($1, 'bench', $2, $3)`, [
      ws.rows[0].id,
      keyPrefix(key),
      hashApiKey(key),
    ]);
    for (let i = 0; i < CODES; i++) {
      await sampler.query(`insert into "Link" ("workspaceId", code, url, "maxClicks") values ($1, $2, 'https://example.com/x', $3)`, [
        ws.rows[0].id,
        `c${i}`,
        i % 3 === 0 ? 1_000_000_000 : null,
      ]);
    }
    const app = await startApp(embedded.url, { PLANS_FILE: plansFile, APP_URL: "http://app.bench", SHORT_DOMAIN: "s.bench" });
    const serverConnections = async () =>
      (
        await sampler.query(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
        )
      ).rows[0].n as number;
    let n = 0;
    const phases: [string, () => Request][] = [
      ["short links (a third capped)", () => ({ path: `/c${n++ % CODES}`, host: "s.bench" })],
      [
        "API reads and creates",
        () =>
          n++ % 2
            ? { path: `/api/v1/links/c${n % CODES}` }
            : { path: "/api/v1/links", method: "POST", body: `{"url":"https://example.com/${n}"}` },
      ],
      [
        "analytics reports",
        () => ({ path: `/api/v1/analytics?groupBy=${["countries", "timeseries", "links", "devices"][n++ % 4]}&interval=30d` }),
      ],
      [
        "all at once",
        () =>
          [
            { path: `/c${n % CODES}`, host: "s.bench" },
            { path: `/api/v1/links/c${n % CODES}` },
            { path: "/api/v1/links", method: "POST", body: `{"url":"https://example.com/${n}"}` },
            { path: `/api/v1/analytics?groupBy=countries&interval=30d` },
          ][n++ % 4],
      ],
    ];
    console.log(`connections of one app process: ${CLIENTS} clients, ${SECONDS} s per phase, ${os.cpus().length} cores`);
    console.log(`after start: ${await serverConnections()}`);
    try {
      for (const [name, next] of phases) {
        let peak = 0;
        let sampling = true;
        const sampleLoop = (async () => {
          while (sampling) {
            peak = Math.max(peak, await serverConnections());
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const requests = await drive(app.port, key, next, SECONDS);
        sampling = false;
        await sampleLoop;
        console.log(`${name.padEnd(30)} peak ${String(peak).padStart(3)} connections   (${requests} requests)`);
      }
      console.log(`held after the phases (idle, before the pools' idle timeout): ${await serverConnections()}`);
    } finally {
      await app.stop();
    }
    console.log(`after the server stopped: ${await serverConnections()}`);
  } finally {
    await sampler.end().catch(() => {});
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
