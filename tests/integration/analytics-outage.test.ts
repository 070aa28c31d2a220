import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ClickHit } from "../../lib/analytics/ingest/enrich.ts";
import { clickHit } from "../support/click-hits.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { metrics } from "../../lib/metrics/index.ts";
import { ClickPipeline } from "../../lib/clicks/pipeline.ts";
import { postgresClickWriter } from "../../lib/clicks/writer.ts";
import { createTestDatabase } from "../support/db.ts";
import { tcpRelay as relay } from "../support/tcp-relay.ts";

// A PostgreSQL outage while click events are written: the batch is kept and written once the
// database is back; when it stays away the click pipeline gives up with a log line naming the count.
// The outage is real: the pipeline's writer reaches PostgreSQL through a TCP relay that the test cuts.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: pg.Client;

const hit = (linkId: number, i: number): ClickHit => clickHit(1, linkId, i);

/** linkhop_click_events_given_up_total{reason} of this process */
const givenUp = async (reason: string) => (await metrics().clicks.givenUp.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

const stored = async (linkId: number) =>
  (await sql.query(`select count(*)::int as n from analytics.click_event where link_id = $1`, [linkId])).rows[0].n as number;

beforeAll(async () => {
  database = await createTestDatabase();
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await database?.drop();
});

test("a flush during an outage keeps the batch and writes it when the database is back", async () => {
  const r = await relay(new URL(database.url));
  const pool = new pg.Pool({ connectionString: r.url, max: 2, connectionTimeoutMillis: 2000 });
  pool.on("error", () => {});
  const logs: string[] = [];
  const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), {
    geo: () => null,
    log: (l) => logs.push(l),
  });
  try {
    for (let i = 0; i < 25; i++) pipeline.add(hit(101, i), false);
    await pipeline.flush(); // also makes the month's partition and the day's salt
    expect(await stored(101)).toBe(25);

    r.cut();
    for (let i = 0; i < 30; i++) pipeline.add(hit(101, 100 + i), false);
    await pipeline.flush();
    await pipeline.flush();
    expect(pipeline.backlog).toBe(30);
    expect(logs.filter((l) => l.includes("writing 30 click events failed"))).toHaveLength(2);
    expect(await stored(101)).toBe(25);

    r.restore();
    pipeline.add(hit(101, 999), false);
    await pipeline.flush();
    expect(pipeline.backlog).toBe(0);
    expect(await stored(101)).toBe(56);
  } finally {
    await pool.end();
    await r.close();
  }
}, 30_000);

test("an outage that outlasts the retries is logged with the number of events given up", async () => {
  const r = await relay(new URL(database.url));
  const pool = new pg.Pool({ connectionString: r.url, max: 2, connectionTimeoutMillis: 2000 });
  pool.on("error", () => {});
  const logs: string[] = [];
  const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), {
    geo: () => null,
    maxAttempts: 3,
    log: (l) => logs.push(l),
  });
  const before = { failed: await givenUp("failed_writes"), shutdown: await givenUp("shutdown") };
  try {
    r.cut();
    for (let i = 0; i < 12; i++) pipeline.add(hit(102, i), false);
    await pipeline.flush();
    await pipeline.flush();
    await pipeline.flush();
    expect(logs.at(-1)).toMatch(/gave up on 12 click events after 3 failed writes/);
    expect(pipeline.backlog).toBe(0);
    expect(await givenUp("failed_writes")).toBe(before.failed + 12);

    // at shutdown there is no later flush: what cannot be written is named in the log
    for (let i = 0; i < 5; i++) pipeline.add(hit(102, 50 + i), false);
    await pipeline.flushForExit(2, 10);
    expect(logs.at(-1)).toMatch(/gave up on 5 click events at shutdown/);
    expect(await givenUp("shutdown")).toBe(before.shutdown + 5);
    r.restore();
    expect(await stored(102)).toBe(0);
  } finally {
    await pool.end();
    await r.close();
  }
}, 30_000);
