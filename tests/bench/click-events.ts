// The click-event batch writer's CPU, per event (`npm run bench:click-events`): enriching hits
// (lib/analytics/ingest/enrich.ts: User-Agent, place, referrer, visitor key) and converting and sending a
// batch (insertClickEvents) in this Node process, and the insert in PostgreSQL (its backend's CPU),
// for batches of CLICK_BENCH_BATCH (default 30,000) hits from one repeated visitor (like the redirect
// benchmark's) and from distinct visitors. Starts its own embedded PostgreSQL. Prints figures only.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { batchEnricher, type ClickHit } from "../../lib/analytics/ingest/enrich.ts";
import { defaultGeoDatabase, GeoLookup } from "../../lib/analytics/ingest/geo.ts";
import { insertClickEvents } from "../../lib/analytics/store/events-insert.ts";
import { ensureMonthPartition, monthOf } from "../../lib/analytics/store/partitions.ts";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";

const BATCH = Number(process.env.CLICK_BENCH_BATCH ?? 30_000);
const REPS = Number(process.env.CLICK_BENCH_REPS ?? 8);
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0",
];

function hits(kind: "one visitor" | "distinct visitors", t0: number): ClickHit[] {
  const one = kind === "one visitor";
  return Array.from({ length: BATCH }, (_, i) => ({
    at: t0 + i,
    workspaceId: 1,
    linkId: 1 + (i % 10),
    domain: "short.bench",
    target: "destination",
    address: one ? "127.0.0.1" : `${1 + (i % 200)}.${(i >> 8) & 255}.${i & 255}.${(i * 7) & 255}`,
    userAgent: one ? AGENTS[0] : AGENTS[i % AGENTS.length],
    referrer: one || i % 3 ? undefined : `https://ref${i % 50}.example/p?q=${i % 10}`,
    countryHeader: undefined,
    bot: false,
    qr: false,
  }));
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** utime + stime of a process in ms (Linux; 0 elsewhere). */
function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-click-bench-"));
  const db = await startEmbeddedPostgres(dir, "click_bench");
  const client = new pg.Client({ connectionString: db.url });
  try {
    await applyMigrations(db.url);
    await client.connect();
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    await ensureMonthPartition(pool, monthOf(Date.now()));
    await pool.end();
    const backend: number = (await client.query("select pg_backend_pid() as pid")).rows[0].pid;
    const geo = GeoLookup.fromFile(defaultGeoDatabase());
    const salt = Buffer.alloc(32, 3);
    let t0 = Date.now() - 3_600_000;
    console.log(`click-event batches of ${BATCH}, ${REPS} per figure (after one warm-up batch), µs per event:`);
    for (const kind of ["one visitor", "distinct visitors"] as const) {
      let enrich = 0;
      let insert = 0;
      let postgres = 0;
      for (let r = -1; r < REPS; r++) {
        const batch = hits(kind, (t0 += BATCH));
        const c0 = ownCpuMs();
        const p0 = processCpuMs(backend);
        const enrichHit = batchEnricher(geo);
        const events = batch.map((h) => enrichHit(h, salt));
        const c1 = ownCpuMs();
        await insertClickEvents(client, events);
        const c2 = ownCpuMs();
        if (r < 0) continue;
        enrich += c1 - c0;
        insert += c2 - c1;
        postgres += processCpuMs(backend) - p0;
      }
      const us = (ms: number) => ((ms * 1000) / REPS / BATCH).toFixed(2).padStart(6);
      console.log(
        `${kind.padEnd(18)} enrich ${us(enrich)}   convert and send ${us(insert)}   PostgreSQL insert ${us(postgres)} (10 ms ticks)`,
      );
    }
  } finally {
    await client.end().catch(() => {});
    await db.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
