// 401 timing (`npm run bench:api-keys`, after a build). The real server.ts on a fresh embedded
// PostgreSQL; one client sends GET /api/v1/links with a missing, malformed, unknown, revoked and
// expired key and a key of a switched-off workspace, interleaved (one of each per round in a random
// order, so load drifts and order effects hit every case alike), BENCH_SAMPLES times (default 300) after a warm-up, and prints the
// median and p90 of each. A live key is measured too for comparison. Prints figures only; it never
// passes or fails on timing.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../../lib/keys/index.ts";
import { startApp } from "../support/app.ts";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const PLANS = {
  plans: { team: { name: "Team", rateLimit: null, liveKeys: 10, maxLinks: 1000, webhookEndpoints: 0, features: ["ApiAccess"] } },
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function timed(port: number, authorization: string | null): Promise<{ ms: number; status: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      { host: "127.0.0.1", port, path: "/api/v1/links", agent, headers: authorization ? { authorization } : {} },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ ms: performance.now() - t0, status: res.statusCode! }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-keys-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(plansFile, JSON.stringify(PLANS));
  const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
  await applyMigrations(embedded.url);
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  const addKey = async (workspaceId: number, extra: string) => {
    const key = generateApiKey();
    await client.query(
      `insert into "ApiKey" ("workspaceId", name, prefix, hash, "revokedAt", "expiresAt") values ($1, 'bench', $2, $3, ${extra})`,
      [workspaceId, keyPrefix(key), hashApiKey(key)],
    );
    return key;
  };
  const ws = (await client.query(`insert into "Workspace" (slug, name, plan) values ('keys', 'keys', 'team') returning id`)).rows[0].id;
  const off = (await client.query(`insert into "Workspace" (slug, name, plan, active) values ('off', 'off', 'team', false) returning id`))
    .rows[0].id;
  const cases: Record<string, string | null> = {
    missing: null,
    malformed: "Bearer lh_short",
    unknown: `Bearer ${generateApiKey()}`,
    revoked: `Bearer ${await addKey(ws, "now(), null")}`,
    expired: `Bearer ${await addKey(ws, "null, now() - interval '1 day'")}`,
    "inactive workspace": `Bearer ${await addKey(off, "null, null")}`,
    "live (200)": `Bearer ${await addKey(ws, "null, null")}`,
  };
  await client.end();

  const app = await startApp(embedded.url, { PLANS_FILE: plansFile, APP_URL: "http://app.bench" });
  try {
    const samples = new Map<string, number[]>(Object.keys(cases).map((k) => [k, []]));
    for (let i = 0; i < 30; i++) for (const auth of Object.values(cases)) await timed(app.port, auth);
    for (let i = 0; i < SAMPLES; i++) {
      const round = Object.entries(cases).sort(() => Math.random() - 0.5);
      for (const [name, auth] of round) {
        const r = await timed(app.port, auth);
        samples.get(name)!.push(r.ms);
      }
    }
    console.log(`GET /api/v1/links, ${SAMPLES} samples per case, one keep-alive connection, ${os.cpus().length} cores\n`);
    for (const [name, list] of samples) {
      list.sort((a, b) => a - b);
      const at = (p: number) => list[Math.min(list.length - 1, Math.floor(list.length * p))];
      console.log(`${name.padEnd(20)} median ${at(0.5).toFixed(2).padStart(6)} ms   p90 ${at(0.9).toFixed(2).padStart(6)} ms`);
    }
  } finally {
    await app.stop();
    agent.destroy();
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
