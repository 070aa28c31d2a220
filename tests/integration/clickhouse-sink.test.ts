import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CLICKHOUSE_STEPS, migrateClickHouse } from "../../lib/analytics/clickhouse/schema.ts";
import { insertBatch, sinkOnce, SINK_CURSOR, toClickHouseRow } from "../../lib/analytics/clickhouse/sink.ts";
import { buildPendingClickHouseDays, builtClickHouseDays } from "../../lib/analytics/clickhouse/rollup-build.ts";
import { prunePostgresCopy, startClickHouseAnalytics } from "../../lib/analytics/clickhouse/runtime.ts";
import { ClickHouseClickStore } from "../../lib/analytics/clickhouse/source.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { reportStore } from "../../lib/analytics/store/instance.ts";
import { peekShared } from "../../lib/registry.ts";
import { advanceCursor, deleteCursor, FEED_START, readClickEventsAfter, readCursor } from "../../lib/analytics/store/feed.ts";
import { chdbMissing, startEmbeddedClickHouse, type EmbeddedClickHouse } from "../clickhouse/embedded.ts";
import { seedEvents, seedWorkspace, storeEvents, type Seeded } from "../clickhouse/seed.ts";
import { createTestDatabase, feedSettled } from "../support/db.ts";

// The sink against real PostgreSQL and a real ClickHouse (chdb): a ClickHouse that fails while
// batches are being written (before an insert lands, and after it landed but before the sink
// heard so) ends with every event once; the schema is versioned and applied once; retention by
// TTL drops old partitions; PostgreSQL's copy is pruned only behind every cursor and the keep.

const missing = chdbMissing();
if (missing) console.log(`[clickhouse] skipped: ${missing}`);

const DAY = 86_400_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let ch: EmbeddedClickHouse;
let seeded: Seeded;

const chRows = async (query: string) => (await ch.client.query({ query, format: "JSONEachRow" })).json<Record<string, unknown>>();

describe.skipIf(missing)("the ClickHouse sink", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 6 });
    ch = await startEmbeddedClickHouse();
    seeded = await seedWorkspace(pool, "snk", 4);
  });

  afterAll(async () => {
    await ch?.close();
    await pool?.end();
    await database?.drop();
  });

  test("the schema is created once, step by step, and recorded", async () => {
    expect(await migrateClickHouse(ch.client)).toEqual(CLICKHOUSE_STEPS.map((s) => s.version));
    expect(await migrateClickHouse(ch.client)).toEqual([]);
    const ledger = await chRows(`SELECT version, name FROM linkhop_migrations ORDER BY version`);
    expect(ledger).toEqual(CLICKHOUSE_STEPS.map((s) => ({ version: s.version, name: s.name })));
  });

  test("ClickHouse failing mid-stream (insert refused, insert landed but unanswered): every event arrives once", async () => {
    const now = Date.now();
    const events = seedEvents(seeded, 3000, now, 20, 11);
    // every third insert lands and then "the connection drops"; every fifth never lands
    let calls = 0;
    const failures = { before: 0, after: 0 };
    const flaky = new Proxy(ch.connection, {
      get(target, key) {
        if (key === "insert")
          return async (params: unknown) => {
            calls++;
            if (calls % 5 === 0) {
              failures.before++;
              throw new Error("ClickHouse refused the connection");
            }
            const result = await (target as unknown as { insert: (p: unknown) => Promise<unknown> }).insert(params);
            if (calls % 3 === 0) {
              failures.after++;
              throw new Error("socket hang up after the insert");
            }
            return result;
          };
        const value = (target as unknown as Record<PropertyKey, unknown>)[key];
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const client = ch.wrap(flaky);
    // the click flush stores batches while the sink runs
    const writing = (async () => {
      for (let i = 0; i < events.length; i += 250) await storeEvents(pool, events.slice(i, i + 250), 250);
    })();
    let done = false;
    void writing.then(() => (done = true));
    const deadline = Date.now() + 120_000;
    for (;;) {
      const finished = done;
      let moved = 0;
      try {
        moved = await sinkOnce(pool, client, 400);
      } catch {
        // the sink's loop waits and tries again (sink.ts startClickHouseSink)
      }
      if (finished && moved === 0) {
        await feedSettled(pool); // every write readable before "nothing left" is believed
        if ((await readClickEventsAfter(pool, (await readCursor(pool, SINK_CURSOR))!, 1)).events.length === 0) break;
      }
      if (Date.now() > deadline) throw new Error("the sink did not catch up in time");
    }
    await writing;
    expect(failures.before).toBeGreaterThan(0);
    expect(failures.after).toBeGreaterThan(0);
    const [stored] = (
      await pool.query(`select count(*)::int as n from analytics.click_event where workspace_id = $1`, [seeded.workspace.id])
    ).rows;
    const [copied] = await chRows(
      `SELECT toUInt32(count()) AS n, toUInt32(uniqExact(tx, seq)) AS places FROM click_event WHERE workspace_id = ${seeded.workspace.id}`,
    );
    expect(stored.n).toBe(3000);
    expect(copied).toEqual({ n: 3000, places: 3000 });
    // the rollups' day counts (a materialized view) saw each event once too: a repeat dropped by
    // the deduplication is not counted
    const [counted] = await chRows(`SELECT toUInt32(sum(events)) AS n FROM click_day_events`);
    const [all] = await chRows(`SELECT toUInt32(count()) AS n FROM click_event`);
    expect(counted.n).toBe(all.n);
    // the same events, field for field (a sample of them in commit order)
    const { events: fed } = await readClickEventsAfter(pool, FEED_START, 50);
    const sample = await chRows(
      `SELECT toUnixTimestamp64Milli(at) AS at, link_id, country, visitor FROM click_event WHERE (tx, seq) IN (${fed
        .map((e) => `(${e.position.tx}, ${e.position.seq})`)
        .join(",")}) ORDER BY tx, seq`,
    );
    expect(sample).toEqual(fed.map((e) => ({ at: String(e.at), link_id: e.linkId, country: e.country, visitor: e.visitor })));
  }, 180_000);

  test("a batch sent again after its days were built: counted once, the days still answered from the rollups", async () => {
    await migrateClickHouse(ch.client); // applied already when the file runs whole
    const ws = await seedWorkspace(pool, "rpt", 2);
    const now = Date.now();
    const events = seedEvents(ws, 60, now - 6 * DAY, 4, 9);
    const rows = events.map((e, i) => toClickHouseRow({ ...e, position: { tx: "7", seq: String(1_000_000 + i) } }, 365));
    const days = [...new Set(events.map((e) => Math.floor(e.at / DAY)))];
    const countsOf = async () =>
      chRows(
        `SELECT toInt32(day) AS d, toUInt32(sum(events)) AS n FROM click_day_events WHERE toInt32(day) IN (${days.join(",")}) GROUP BY d ORDER BY d`,
      );
    await insertBatch(ch.client, rows, "repeat-1");
    const before = await countsOf();
    await buildPendingClickHouseDays(ch.client, now);
    const built = await builtClickHouseDays(ch.client, Math.min(...days), Math.max(...days) + 1);
    for (const d of days) expect(built.get(d), `day ${d} built`).toBeGreaterThan(0n);
    const clicksOf = async () =>
      chRows(`SELECT toUInt32(sum(clicks)) AS n FROM click_day WHERE workspace_id = ${ws.workspace.id} AND fdim = '' AND dim = 'total'`);
    expect(await clicksOf()).toEqual([{ n: 60 }]);
    // the sink sends the same batch again (its answer was lost): ClickHouse drops it, the view does not fire
    await insertBatch(ch.client, rows, "repeat-1");
    expect(await countsOf()).toEqual(before);
    expect(await builtClickHouseDays(ch.client, Math.min(...days), Math.max(...days) + 1)).toEqual(built);
    expect(await buildPendingClickHouseDays(ch.client, now)).toBe(0);
    expect(await clicksOf()).toEqual([{ n: 60 }]);
    // a late event of one of those days (another batch): that day is read from the events until built again
    const [late] = seedEvents(ws, 1, days[0] * DAY + 3_600_000, 0.01, 10);
    await insertBatch(ch.client, [toClickHouseRow({ ...late, position: { tx: "7", seq: "2000000" } }, 365)], "repeat-late");
    expect((await builtClickHouseDays(ch.client, days[0], days[0] + 1)).has(days[0])).toBe(false);
    expect(await buildPendingClickHouseDays(ch.client, now)).toBe(1);
    expect((await builtClickHouseDays(ch.client, days[0], days[0] + 1)).has(days[0])).toBe(true);
    expect(await clicksOf()).toEqual([{ n: 61 }]);
    // two different batches whose day counts look alike (one event each, same day): both counted
    const [a, b] = seedEvents(ws, 2, days[1] * DAY + 7_200_000, 0.01, 12);
    const dayCount = async () => (await countsOf()).find((r) => r.d === days[1])?.n;
    const had = await dayCount();
    await insertBatch(ch.client, [toClickHouseRow({ ...a, position: { tx: "7", seq: "2000001" } }, 365)], "alike-a");
    await insertBatch(ch.client, [toClickHouseRow({ ...b, position: { tx: "7", seq: "2000002" } }, 365)], "alike-b");
    expect(await dayCount()).toBe(Number(had) + 2);
  });

  test("retention: rows past their plan's retention are dropped by TTL, whole old partitions with them", async () => {
    const now = Date.now();
    const [e] = seedEvents(seeded, 1, now, 1, 3);
    const old = { ...e, at: Date.UTC(2024, 0, 15) };
    const position = { tx: "1", seq: "0" };
    await insertBatch(ch.client, [toClickHouseRow({ ...old, position: { ...position, seq: "1" } }, 365)], "retention-old");
    await insertBatch(
      ch.client,
      [toClickHouseRow({ ...e, at: Date.UTC(2026, 0, 10), position: { ...position, seq: "2" } }, 1095)],
      "retention-kept",
    );
    const rowsIn = async (partition: string) =>
      Number(
        (
          await chRows(
            `SELECT toUInt32(sum(rows)) AS n FROM system.parts WHERE table = 'click_event' AND active AND partition = '${partition}'`,
          )
        )[0]?.n ?? 0,
      );
    expect(await rowsIn("202401")).toBe(0); // expired on arrival (2024-01 + 365 days)
    expect(await rowsIn("202601")).toBe(1);
    // a plan whose retention has passed for those rows (as time passing would): the next TTL merge drops them
    await ch.client.command({
      query: `ALTER TABLE click_event UPDATE keep_days = 30 WHERE toYYYYMM(at) = 202601`,
      clickhouse_settings: { mutations_sync: "2" },
    });
    await ch.client.command({ query: `OPTIMIZE TABLE click_event PARTITION 202601 FINAL` });
    expect(await rowsIn("202601")).toBe(0);
    expect(await rowsIn(String(new Date(now).getUTCFullYear() * 100 + new Date(now).getUTCMonth() + 1))).toBeGreaterThan(0);
    // the destination rollups and their URLs expire by TTL too (schema step 3)
    const ws = 990_001;
    const dest = "0123456789abcdef";
    const row = { workspace_id: ws, bot: false, fdim: "country", fvalue: "US", dest, clicks: 1, visitors: 1, build: 1 };
    await ch.client.insert({
      table: "click_day_destination",
      values: [
        { ...row, day: "2024-01-15", keep_days: 365 },
        { ...row, day: "2026-01-10", keep_days: 1095 },
      ],
      format: "JSONEachRow",
    });
    await ch.client.insert({
      table: "click_destination",
      values: [
        { workspace_id: ws, dest, url: "https://old.example/", until: "2025-01-14" },
        { workspace_id: ws, dest: "fedcba9876543210", url: "https://kept.example/", until: "2029-01-09" },
      ],
      format: "JSONEachRow",
    });
    // an expired part is dropped by a TTL merge, which ClickHouse runs in the background when it
    // likes: force it, as above, so the assertion does not depend on that timing
    for (const table of ["click_day_destination", "click_destination"]) await ch.client.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const left = async (table: string) =>
      Number((await chRows(`SELECT toUInt32(count()) AS n FROM ${table} WHERE workspace_id = ${ws}`))[0].n);
    expect(await left("click_day_destination")).toBe(1);
    expect(await left("click_destination")).toBe(1);
  });

  test("PostgreSQL's copy is pruned behind every cursor and the keep period only", async () => {
    const now = Date.now();
    const ws = await seedWorkspace(pool, "prn", 2);
    const count = async () =>
      (await pool.query(`select count(*)::int as n from analytics.click_event where workspace_id = $1`, [ws.workspace.id])).rows[0]
        .n as number;
    await storeEvents(pool, seedEvents(ws, 40, now - 10 * DAY, 5, 5)); // 10 to 15 days old
    await storeEvents(pool, seedEvents(ws, 10, now, 1, 6)); // today
    // a link.clicked reader that has not read them yet holds them
    await advanceCursor(pool, "clicked:test", FEED_START);
    while ((await sinkOnce(pool, ch.client, 1000)) > 0);
    expect(await prunePostgresCopy(pool, 3 * DAY, now)).toBe(0);
    expect(await count()).toBe(50);
    await deleteCursor(pool, "clicked:test");
    expect(await prunePostgresCopy(pool, 3 * DAY, now)).toBeGreaterThanOrEqual(40);
    expect(await count()).toBe(10); // today's stay for the keep period
    const [inClickHouse] = await chRows(`SELECT toUInt32(count()) AS n FROM click_event WHERE workspace_id = ${ws.workspace.id}`);
    expect(inClickHouse.n).toBe(50);
  });

  // last: stopping closes the client, and with it the embedded connection
  test("in a process: the schema, then the sink, and reports answered from ClickHouse until stopped", async () => {
    const ws = await seedWorkspace(pool, "rtm", 2);
    await storeEvents(pool, seedEvents(ws, 30, Date.now(), 2, 8));
    const stop = await startClickHouseAnalytics({ connection: ch.connection }, pool, new PostgresClickStore(pool), {
      jobs: true,
      keepMs: 3 * DAY,
      sinkIntervalMs: 50,
    });
    try {
      expect(reportStore()).toBeInstanceOf(ClickHouseClickStore);
      const deadline = Date.now() + 30_000;
      let n = 0;
      while (Date.now() < deadline) {
        n = Number((await chRows(`SELECT toUInt32(count()) AS n FROM click_event WHERE workspace_id = ${ws.workspace.id}`))[0].n);
        if (n >= 30) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(n).toBe(30);
    } finally {
      await stop();
    }
    expect(peekShared("clickhouse")).toBeUndefined();
  });
});
