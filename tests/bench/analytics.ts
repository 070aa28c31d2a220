// Click-analytics query speed (`npm run bench:analytics`): seeds BENCH_EVENTS click events (default
// 10 million, with long destination URLs and languages) over 13 months in one workspace of 1000 links (eleven tags), through COPY (pg-copy-streams), into a
// fresh embedded PostgreSQL, then times every groupBy of lib/analytics for the last 30 days and the
// last year, without and with a filter (country=US, device=mobile, one link, a folder of 100 links,
// a tag on 143 links: each read from the rollups), BENCH_RUNS times each (default 3, after one
// warm-up), through the same service the API calls. The rollups are built first, as the app's
// background job does. Prints the p50 of each; goals: under 300 ms for
// every 30-day query, under 1 s for every 1-year query. Prints figures only; never fails on timing.
// BENCH_KEEP_DIR=<dir> keeps (and reuses) the seeded database there between runs. BENCH_GROUPS=a,b
// times only those groupBy values (e.g. destinations,countries), for a quicker look at a few.
// The rollup builds print their time per day (the build's cost grows with what the rollups keep).
// Then the ClickHouse run (skipped with one line where chdb cannot load, tests/clickhouse): an
// embedded ClickHouse seeded with BENCH_CH_EVENTS events (default 100 million; the same generator,
// workspace and links) through the sink's own insert path (lib/analytics/clickhouse/sink.ts
// insertBatch, batches of BENCH_CH_BATCH, insert rate printed), then the same query mix through
// the same service with ClickHouse as the store, printed beside PostgreSQL's figures (goal: every
// report under 300 ms at the median). BENCH_PG=0 skips the PostgreSQL run (and seeds PostgreSQL
// with no events: the workspace and links only).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations } from "../../lib/db/migrate.ts";

const PG_RUN = process.env.BENCH_PG !== "0";
const EVENTS = PG_RUN ? Number(process.env.BENCH_EVENTS ?? 10_000_000) : 0;
const CH_EVENTS = Number(process.env.BENCH_CH_EVENTS ?? 100_000_000);
const CH_BATCH = Number(process.env.BENCH_CH_BATCH ?? 20_000);
// chdb's connection hands an insert to ClickHouse as one SQL text (its SQL parser, not the HTTP
// body parser of a server), about 12,000 events/s here: past BENCH_CH_SINK_EVENTS (default 2
// million) the table is doubled inside ClickHouse (INSERT ... SELECT with new visitor keys and feed
// positions; the copied rows are the first by seq, which runs 1..n without gaps) until it holds
// BENCH_CH_EVENTS; the output says how many came which way. Then ClickHouse's daily rollups are
// built, as the app's job does (lib/analytics/clickhouse/rollup-build.ts).
const CH_SINK_EVENTS = Math.min(CH_EVENTS, Number(process.env.BENCH_CH_SINK_EVENTS ?? 2_000_000));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ONLY_GROUPS = process.env.BENCH_GROUPS ? process.env.BENCH_GROUPS.split(",") : null;
const LINKS = 1000;
const DAY = 86_400_000;
const MONTHS = 13;
const FILTERS: Record<string, Record<string, string | string[]>> = {
  "": {},
  "country=US": { country: "US" },
  "device=mobile": { device: "mobile" },
  "link=l0": { link: "l0" }, // the busiest link (about 3% of the clicks)
  "folder=promo": { folder: "promo" }, // every tenth link
  "tag=featured": { tag: ["featured"] }, // every seventh link
};

// a small deterministic generator (mulberry32: the same data every run, and well mixed, so the
// dimensions vary independently as the weights say)
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(list: readonly T[], weights?: number[]) => {
  if (!weights) return list[Math.floor(rand() * list.length)];
  let r = rand() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < list.length; i++) if ((r -= weights[i]) < 0) return list[i];
  return list[list.length - 1];
};
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "CA", "JP", "ES", "IT", "NL", "SE", "PL", "AU", "MX", "KR", "CH", "AT", "BE", "DK"];
const COUNTRY_W = COUNTRIES.map((_, i) => 30 / (i + 1));
const CITIES: Record<string, string[]> = {
  US: ["New York", "Boston", "Chicago", "Austin"],
  DE: ["Berlin", "Munich"],
  GB: ["London"],
  FR: ["Paris"],
};
const AGENTS: [string, string, string][] = [
  ["mobile", "Safari", "iOS"],
  ["mobile", "Chrome", "Android"],
  ["desktop", "Chrome", "Windows"],
  ["desktop", "Edge", "Windows"],
  ["desktop", "Safari", "macOS"],
  ["desktop", "Firefox", "macOS"],
  ["desktop", "Firefox", "Linux"],
  ["tablet", "Safari", "iOS"],
  ["other", "", ""],
];
const AGENT_W = [30, 25, 20, 8, 7, 4, 2, 3, 1];
const REFERRERS = [
  "",
  "t.co",
  "www.google.com",
  "www.facebook.com",
  "com.slack",
  "www.linkedin.com",
  "news.ycombinator.com",
  "www.reddit.com",
  ...Array.from({ length: 40 }, (_, i) => `blog${i}.example.com`),
];
const REFERRER_W = REFERRERS.map((_, i) => (i === 0 ? 40 : 20 / i));
// first Accept-Language subtags ("" for none: \N, reported as unknown)
const LANGUAGES = ["en", "de", "", "fr", "es", "pt", "ja", "it", "nl", "sv", "pl", "ko", "zh", "ru", "tr"];
const LANGUAGE_W = LANGUAGES.map((_, i) => 30 / (i + 1));
/** The URL a visit was sent to: long, as shop URLs with UTM parameters are; every fifth link an A/B test of two. */
const destinationOf = (n: number) =>
  `https://shop.example.com/products/category-${n % 50}/item-${n}${n % 5 === 0 && rand() < 0.5 ? "-b" : ""}?utm_source=linkhop&utm_medium=short-link&utm_campaign=autumn-sale-2026`;

type BenchEvent = {
  at: number;
  link: number;
  country: string;
  city: string | null;
  device: string;
  browser: string;
  os: string;
  referrer: string;
  bot: boolean;
  qr: boolean;
  visitor: number;
  destination: string;
  /** "" for none */
  language: string;
};

function benchEvent(firstLink: number, start: number, span: number): BenchEvent {
  const at = start + Math.floor(rand() * span);
  const day = Math.floor(at / DAY);
  const country = pick(COUNTRIES, COUNTRY_W);
  const city = CITIES[country] ? pick(CITIES[country]) : null;
  const [device, browser, os_] = pick(AGENTS, AGENT_W);
  const referrer = pick(REFERRERS, REFERRER_W);
  const bot = rand() < 0.05;
  const qr = rand() < 0.1;
  // visitors: a pool per day, so a visitor clicks about 1.5 times a day
  const visitor = day * 100_000 + Math.floor(rand() * 20_000);
  const n = Math.floor(Math.pow(rand(), 2) * LINKS);
  const link = firstLink + n;
  const language = pick(LANGUAGES, LANGUAGE_W);
  return { at, link, country, city, device, browser, os: os_, referrer, bot, qr, visitor, destination: destinationOf(n), language };
}

function eventLine(workspaceId: number, firstLink: number, start: number, span: number): string {
  const e = benchEvent(firstLink, start, span);
  return (
    [
      new Date(e.at).toISOString(),
      workspaceId,
      e.link,
      "short.bench",
      "destination",
      e.country,
      e.city ?? "\\N",
      e.referrer || "\\N",
      e.referrer ? `https://${e.referrer}/p` : "\\N",
      e.device,
      e.browser || "\\N",
      e.os || "\\N",
      e.bot ? "t" : "f",
      e.qr ? "t" : "f",
      e.visitor,
      e.destination,
      e.language || "\\N",
    ].join("\t") + "\n"
  );
}

/** Ten tags, one per link (by its number modulo 10), and an eleventh on every seventh link. */
async function seedTags(client: pg.Client, workspaceId: number) {
  const { rows } = await client.query(`select count(*)::int as n from "Tag" where "workspaceId" = $1`, [workspaceId]);
  if (rows[0].n) return;
  await client.query(
    `insert into "Tag" ("workspaceId", name, "nameKey") select $1, n, n from unnest(array['featured', 't0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9']) as n`,
    [workspaceId],
  );
  await client.query(
    `insert into "LinkTag" ("linkId", "tagId")
     select l.id, t.id from "Link" l join "Tag" t on t."workspaceId" = l."workspaceId"
     where l."workspaceId" = $1 and (t.name = 't' || (substring(l.code from 2)::int % 10) or (t.name = 'featured' and substring(l.code from 2)::int % 7 = 0))`,
    [workspaceId],
  );
}

async function seed_(url: string): Promise<{ workspace: { id: number; slug: string; name: string; plan: string } }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const existing = await client.query(`select id, slug, name, plan from "Workspace" where slug = 'bench'`);
    if (existing.rows[0]) {
      const { rows } = await client.query(`select count(*)::int as n from analytics.click_event`);
      console.log(`reusing the seeded database: ${rows[0].n} events`);
      await seedTags(client, existing.rows[0].id);
      return { workspace: existing.rows[0] };
    }
    const ws = (
      await client.query(`insert into "Workspace" (slug, name, plan) values ('bench', 'Bench', 'business') returning id, slug, name, plan`)
    ).rows[0];
    const links = await client.query(
      `insert into "Link" ("workspaceId", code, url, folder) select $1, 'l' || i, 'https://example.com/' || i, case when i % 10 = 0 then 'promo' else '' end
       from generate_series(0, $2 - 1) as i returning id`,
      [ws.id, LINKS],
    );
    const firstLink = Math.min(...links.rows.map((r) => r.id));
    await seedTags(client, ws.id);
    const { ensureMonthPartition, monthOf, nextMonth } = await import("../../lib/analytics/store/partitions.ts");
    const end = Date.now();
    const start = end - MONTHS * 30.5 * DAY;
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    for (let m = monthOf(start); ; m = nextMonth(m)) {
      await ensureMonthPartition(pool, m);
      if (m.year === monthOf(end).year && m.month === monthOf(end).month) break;
    }
    await pool.end();
    const t0 = Date.now();
    let made = 0;
    const CHUNK = 5000;
    const source = Readable.from(
      (function* () {
        while (made < EVENTS) {
          const n = Math.min(CHUNK, EVENTS - made);
          let text = "";
          for (let i = 0; i < n; i++) text += eventLine(ws.id, firstLink, start, end - start);
          made += n;
          if (made % 1_000_000 === 0) console.log(`  ${made / 1e6}M events copied (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
          yield text;
        }
      })(),
    );
    await pipeline(
      source,
      client.query(
        copyFrom(
          `copy analytics.click_event (at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, visitor, destination, language) from stdin`,
        ),
      ),
    );
    console.log(`seeded ${EVENTS} events over ${MONTHS} months through COPY in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await client.query(`vacuum analyze analytics.click_event`);
    return { workspace: ws };
  } finally {
    await client.end();
  }
}

async function main() {
  console.log(`analytics benchmark: ${EVENTS} events, ${RUNS} runs per query, ${os.cpus().length} cores, Node ${process.version}`);
  const keep = process.env.BENCH_KEEP_DIR;
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-bench-analytics-"));
  const embedded = await startEmbeddedPostgres(dir, "linkhop_bench");
  process.on("SIGINT", () => void embedded.stop().finally(() => process.exit(130)));
  try {
    await applyMigrations(embedded.url);
    process.env.DATABASE_URL = embedded.url;
    const { workspace } = await seed_(embedded.url);
    // the daily rollups, as the app's background job builds them (lib/analytics/store/rollup-build.ts)
    const { buildPendingRollups } = await import("../../lib/analytics/store/rollup-build.ts");
    const rollupPool = new pg.Pool({ connectionString: embedded.url, max: 1 });
    const t0 = Date.now();
    const built = await buildPendingRollups(rollupPool);
    const pgSecs = (Date.now() - t0) / 1000;
    console.log(
      `daily rollups built for ${built} days in ${pgSecs.toFixed(1)} s${built ? ` (${((pgSecs * 1000) / built).toFixed(0)} ms per day)` : ""}`,
    );
    await rollupPool.end();
    const rows = PG_RUN ? await timeQueries(workspace, undefined, "PostgreSQL") : [];
    if (PG_RUN) summarize(rows, "PostgreSQL");
    await clickHouseRun(embedded.url, workspace, rows);
    const { disconnectDb } = await import("../../lib/db/client.ts");
    await disconnectDb();
  } finally {
    await embedded.stop();
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

type Timed = { groupBy: string; interval: string; filter: string; ms: number };
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Every groupBy over 30 days and a year, without and with each filter: the p50 of RUNS (after a warm-up). */
async function timeQueries(
  workspace: { id: number; slug: string; name: string; plan: string },
  store: import("../../lib/analytics/model.ts").ClickStore | undefined,
  label: string,
  beside: Timed[] = [],
): Promise<Timed[]> {
  const { analytics } = await import("../../lib/analytics/reports/service.ts");
  const { GROUP_BYS } = await import("../../lib/analytics/reports/schemas.ts");
  const rows: Timed[] = [];
  const now = Date.now();
  {
    for (const interval of ["30d", "1y"] as const) {
      for (const filter of Object.keys(FILTERS)) {
        for (const groupBy of GROUP_BYS.filter((g) => !ONLY_GROUPS || ONLY_GROUPS.includes(g))) {
          const input = { groupBy, interval, ...FILTERS[filter] };
          await analytics(workspace, input, now, store); // warm-up
          const times: number[] = [];
          for (let i = 0; i < RUNS; i++) {
            const t = performance.now();
            await analytics(workspace, input, now, store);
            times.push(performance.now() - t);
          }
          const ms = p50(times);
          rows.push({ groupBy, interval, filter: filter || "-", ms });
          const goal = store ? 300 : interval === "30d" ? 300 : 1000;
          const other = beside.find((r) => r.groupBy === groupBy && r.interval === interval && r.filter === (filter || "-"));
          console.log(
            `${label.padEnd(10)} ${interval.padEnd(4)} ${(filter || "-").padEnd(13)} ${groupBy.padEnd(11)} p50 ${ms.toFixed(0).padStart(6)} ms${
              other ? ` (PostgreSQL ${other.ms.toFixed(0)} ms)` : ""
            } ${ms <= goal ? "" : `(goal ${goal} ms)`}`,
          );
        }
      }
    }
  }
  return rows;
}

function summarize(rows: Timed[], label: string, goal?: number) {
  for (const interval of ["30d", "1y"]) {
    const list = rows.filter((r) => r.interval === interval);
    if (!list.length) continue;
    const worst = list.reduce((a, b) => (b.ms > a.ms ? b : a));
    const g = goal ?? (interval === "30d" ? 300 : 1000);
    console.log(`${label} ${interval}: slowest p50 ${worst.ms.toFixed(0)} ms (${worst.groupBy}, filter ${worst.filter}); goal ${g} ms`);
  }
}

/** The ClickHouse run: seeded through the sink's insert path, then the same query mix. */
async function clickHouseRun(pgUrl: string, workspace: { id: number; slug: string; name: string; plan: string }, pgRows: Timed[]) {
  const { chdbMissing, startEmbeddedClickHouse } = await import("../clickhouse/embedded.ts");
  const missing = chdbMissing();
  if (missing) {
    console.log(`ClickHouse run skipped: ${missing}`);
    return;
  }
  const { migrateClickHouse } = await import("../../lib/analytics/clickhouse/schema.ts");
  const { insertBatch, toClickHouseRow } = await import("../../lib/analytics/clickhouse/sink.ts");
  const { ClickHouseClickStore } = await import("../../lib/analytics/clickhouse/source.ts");
  const { PostgresClickStore } = await import("../../lib/analytics/store/click-store.ts");
  const ch = await startEmbeddedClickHouse();
  const pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
  try {
    await migrateClickHouse(ch.client);
    const firstLink = (await pool.query(`select min(id)::int as id from "Link" where "workspaceId" = $1`, [workspace.id])).rows[0].id;
    const end = Date.now();
    const start = end - MONTHS * 30.5 * DAY;
    seed = 4242;
    console.log(`ClickHouse: seeding ${CH_EVENTS} events in batches of ${CH_BATCH} through the sink's insert path (insertBatch)`);
    const t0 = performance.now();
    let seq = 0;
    for (let made = 0; made < CH_SINK_EVENTS;) {
      const n = Math.min(CH_BATCH, CH_SINK_EVENTS - made);
      const rows = new Array(n);
      for (let i = 0; i < n; i++) {
        const e = benchEvent(firstLink, start, end - start);
        seq++;
        rows[i] = toClickHouseRow(
          {
            at: e.at,
            workspaceId: workspace.id,
            linkId: e.link,
            domain: "short.bench",
            target: "destination",
            country: e.country,
            city: e.city,
            referrerHost: e.referrer || null,
            referrerUrl: e.referrer ? `https://${e.referrer}/p` : null,
            device: e.device,
            browser: e.browser || null,
            os: e.os || null,
            bot: e.bot,
            qr: e.qr,
            visitor: String(e.visitor),
            destination: e.destination,
            language: e.language || null,
            position: { tx: "1", seq: String(seq) },
          },
          1095,
        );
      }
      await insertBatch(ch.client, rows, `bench-${made}`);
      made += n;
      if (made % (CH_BATCH * 25) === 0 || made === CH_SINK_EVENTS) {
        const s = (performance.now() - t0) / 1000;
        console.log(`  ${(made / 1e6).toFixed(1)}M events inserted (${s.toFixed(0)} s, ${Math.round(made / s)} events/s)`);
      }
    }
    const secs = (performance.now() - t0) / 1000;
    console.log(
      `ClickHouse: ${CH_SINK_EVENTS} events in ${secs.toFixed(1)} s through insertBatch: ${Math.round(CH_SINK_EVENTS / secs)} events/s`,
    );
    for (let have = CH_SINK_EVENTS, copy = 1; have < CH_EVENTS; copy++) {
      const n = Math.min(have, CH_EVENTS - have);
      const t = performance.now();
      await ch.client.command({
        query: `INSERT INTO click_event SELECT at, workspace_id, link_id, domain, target, country, city, referrer_host, referrer_url,
                  device, browser, os, bot, qr, visitor + ${copy} * 1000000000000, destination, language, tx, seq + ${have}, keep_days
                FROM click_event WHERE seq <= ${n}`,
        clickhouse_settings: { insert_deduplicate: 0 },
      });
      have += n;
      console.log(`  doubled inside ClickHouse to ${have} events (${((performance.now() - t) / 1000).toFixed(1)} s)`);
    }
    await ch.client.command({ query: "OPTIMIZE TABLE click_event FINAL" });
    // the daily rollups, as the app's job builds them (lib/analytics/clickhouse/rollup-build.ts)
    const { buildPendingClickHouseDays } = await import("../../lib/analytics/clickhouse/rollup-build.ts");
    const tb = performance.now();
    const builtDays = await buildPendingClickHouseDays(ch.client);
    const chSecs = (performance.now() - tb) / 1000;
    console.log(
      `ClickHouse: daily rollups built for ${builtDays} days in ${chSecs.toFixed(1)} s${builtDays ? ` (${((chSecs * 1000) / builtDays).toFixed(0)} ms per day)` : ""}`,
    );
    console.log(
      `load average: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    const store = new ClickHouseClickStore(ch.client, pool, new PostgresClickStore(pool));
    const label = `CH ${CH_EVENTS >= 1e6 ? `${CH_EVENTS / 1e6}M` : CH_EVENTS}`;
    const rows = await timeQueries(workspace, store, label, pgRows);
    summarize(rows, `ClickHouse (${CH_EVENTS} events)`, 300);
    console.log(
      `load average: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    );
    if (pgRows.length) summarize(pgRows, `PostgreSQL (${EVENTS} events)`);
  } finally {
    await pool.end();
    await ch.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
