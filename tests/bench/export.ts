// Link export (`npm run bench:export`, after a build): the real server.ts on a fresh embedded
// PostgreSQL, BENCH_LINKS (default 100,000) links with a tag each, then GET /api/v1/links/export
// read to its end. Prints the time, the size, and the app process's resident memory before and at
// its peak during the export (sampled from /proc every 50 ms): the export is read in batches of
// 1000 and streamed, so memory stays flat however many links there are. Figures only; no pass/fail.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";
import { generateApiKey, hashApiKey, keyPrefix } from "../../lib/keys/index.ts";
import { startApp } from "../support/app.ts";

const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const ALL = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "BulkLinks", "Webhooks"];

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-export-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(
    plansFile,
    JSON.stringify({
      plans: { open: { name: "Open", rateLimit: null, liveKeys: 10, maxLinks: 1_000_000_000, webhookEndpoints: 0, features: ALL } },
    }),
  );
  const embedded = await startEmbeddedPostgres(path.join(dir, "pg"), "linkhop_bench");
  await applyMigrations(embedded.url);
  const key = generateApiKey();
  const client = new pg.Client({ connectionString: embedded.url });
  await client.connect();
  const ws = (await client.query(`insert into "Workspace" (slug, name, plan) values ('bench', 'Bench', 'open') returning id`)).rows[0].id;
  await client.query(`insert into "ApiKey" ("workspaceId", name, prefix, hash) values ($1, 'bench', $2, $3)`, [
    ws,
    keyPrefix(key),
    hashApiKey(key),
  ]);
  await client.query(
    `insert into "Link" ("workspaceId", code, url, title, notes, folder, "createdAt")
     select $1, 'x' || g, 'https://example.com/page/' || g || '?utm_source=bench', 'Title ' || g, 'Notes, with "quotes" ' || g, 'bench/' || (g % 10),
            now() - (g || ' milliseconds')::interval
     from generate_series(1, $2::int) g`,
    [ws, LINKS],
  );
  const tag = (await client.query(`insert into "Tag" ("workspaceId", name, "nameKey") values ($1, 'bench', 'bench') returning id`, [ws]))
    .rows[0].id;
  await client.query(`insert into "LinkTag" ("linkId", "tagId") select id, $1 from "Link" where "workspaceId" = $2`, [tag, ws]);
  await client.end();

  const app = await startApp(embedded.url, { PLANS_FILE: plansFile, APP_URL: "http://app.bench" });
  try {
    const pid = app.process.pid!;
    // warm the route up (first request compiles and connects)
    await new Promise<void>((resolve, reject) =>
      http
        .get(
          {
            host: "127.0.0.1",
            port: app.port,
            path: "/api/v1/links/export?q=nothing-matches",
            headers: { authorization: `Bearer ${key}` },
          },
          (res) => res.resume().on("end", resolve),
        )
        .on("error", reject),
    );
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
    const started = performance.now();
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port: app.port, path: "/api/v1/links/export", headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.on("data", (chunk: Buffer) => {
            if (bytes === 0) firstByteMs = performance.now() - started;
            bytes += chunk.length;
            for (const b of chunk) if (b === 10) lines++;
          });
          res.on("end", resolve);
          res.on("error", reject);
        })
        .on("error", reject);
    });
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    console.log(
      `Linkhop link export: ${LINKS.toLocaleString("en")} links with a tag each, ${os.cpus().length} cores shared with PostgreSQL`,
    );
    console.log(
      `rows: ${(lines - 1).toLocaleString("en")} (+ header), ${(bytes / 1024 / 1024).toFixed(1)} MB in ${seconds.toFixed(1)} s (${Math.round((lines - 1) / seconds).toLocaleString("en")} links/s), first byte after ${firstByteMs.toFixed(0)} ms`,
    );
    console.log(
      `app resident memory: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak (+${(peak - before).toFixed(0)} MB)`,
    );
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
