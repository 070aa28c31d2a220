import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ClickHouseClickStore } from "../../lib/analytics/clickhouse/source.ts";
import { buildPendingClickHouseDays } from "../../lib/analytics/clickhouse/rollup-build.ts";
import { migrateClickHouse } from "../../lib/analytics/clickhouse/schema.ts";
import { sinkOnce } from "../../lib/analytics/clickhouse/sink.ts";
import type { ClickStore } from "../../lib/analytics/model.ts";
import { analytics } from "../../lib/analytics/reports/service.ts";
import { exportClicks } from "../../lib/analytics/reports/export.ts";
import { GROUP_BYS, INTERVALS, type AnalyticsQueryInput } from "../../lib/analytics/reports/schemas.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { buildPendingRollups } from "../../lib/analytics/store/rollup-build.ts";
import { chdbMissing, startEmbeddedClickHouse, type EmbeddedClickHouse } from "../clickhouse/embedded.ts";
import { seedEvents, seedWorkspace, storeEvents, type Seeded } from "../clickhouse/seed.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The same seeded events, stored in PostgreSQL (with its daily rollups built, as the hourly job
// does) and copied to a real ClickHouse (chdb) by the sink (with ClickHouse's daily rollups built,
// as its job does: the plans read them, asserted below), give the same answers from both stores
// for every groupBy (the schema's own list), interval, filter, time zone and the CSV export,
// through the service the API calls.

const missing = chdbMissing();
if (missing) console.log(`[clickhouse] skipped: ${missing}`);

const NOW = Date.UTC(2026, 10, 27, 15, 30);
// every comparison runs both stores through the service; on a loaded 2-core machine that takes a while
const SLOW = 240_000;
const TIMEZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Australia/Adelaide", "Pacific/Chatham"];

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let ch: EmbeddedClickHouse;
let seeded: Seeded;
let postgres: ClickStore;
let clickhouse: ClickHouseClickStore;

describe.skipIf(missing)("ClickHouse answers as PostgreSQL does", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    await useDatabaseInProcess(database.url);
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    ch = await startEmbeddedClickHouse();
    await migrateClickHouse(ch.client);
    seeded = await seedWorkspace(pool, "par");
    await storeEvents(pool, seedEvents(seeded, 3000, NOW, 420));
    await buildPendingRollups(pool, NOW);
    while ((await sinkOnce(pool, ch.client, 1500)) > 0);
    await buildPendingClickHouseDays(ch.client, NOW);
    const pgStore = new PostgresClickStore(pool);
    postgres = pgStore;
    clickhouse = new ClickHouseClickStore(ch.client, pool, pgStore);
  });

  afterAll(async () => {
    await ch?.close();
    await pool?.end();
    const { currentRuntime } = await import("../../lib/runtime.ts");
    await currentRuntime()?.close();
    await database?.drop();
  });

  const FILTERS: Record<string, Partial<AnalyticsQueryInput>> = {
    none: {},
    country: { country: "us" },
    city: { city: "linköping" },
    device: { device: "mobile" },
    browser: { browser: "FIREFOX" },
    os: { os: "ios" },
    referrer: { referrer: "T.CO" },
    direct: { referrer: "(direct)" },
    qr: { qr: true },
    link: { link: "par0" },
    folder: { folder: "promo" },
    tag: { tag: ["featured"] },
    two: { country: "DE", device: "desktop" },
    "bots include": { bots: "include" },
    "bots only": { bots: "only", device: "mobile" },
  };

  /** Both stores' answers to each input, side by side (a few at a time). */
  async function compare(inputs: [string, AnalyticsQueryInput][]) {
    for (let i = 0; i < inputs.length; i += 8) {
      await Promise.all(
        inputs.slice(i, i + 8).map(async ([name, input]) => {
          const [a, b] = await Promise.all([
            analytics(seeded.workspace, input, NOW, postgres),
            analytics(seeded.workspace, input, NOW, clickhouse),
          ]);
          expect(b, name).toEqual(a);
        }),
      );
    }
  }

  test(
    "every groupBy over every interval: the same answer",
    async () => {
      await compare(
        GROUP_BYS.flatMap((groupBy) =>
          INTERVALS.map((interval): [string, AnalyticsQueryInput] => [
            `${groupBy} ${interval}`,
            { groupBy, interval, limit: 100 } as AnalyticsQueryInput,
          ]),
        ),
      );
    },
    SLOW,
  );

  test(
    "every groupBy under every filter: the same answer",
    async () => {
      await compare(
        GROUP_BYS.flatMap((groupBy) =>
          Object.entries(FILTERS).map(([name, filter]): [string, AnalyticsQueryInput] => [
            `${groupBy} ${name}`,
            { groupBy, interval: "1y", limit: 100, ...filter } as AnalyticsQueryInput,
          ]),
        ),
      );
    },
    SLOW,
  );

  test(
    "timeseries in several time zones, hours and days: the same buckets",
    async () => {
      await compare(
        TIMEZONES.flatMap((timezone) =>
          INTERVALS.flatMap((interval) =>
            [FILTERS.none, FILTERS.country, FILTERS.folder].map((filter): [string, AnalyticsQueryInput] => [
              `${timezone} ${interval}`,
              { groupBy: "timeseries", interval, timezone, ...filter } as AnalyticsQueryInput,
            ]),
          ),
        ),
      );
      for (const granularity of ["hour", "day"] as const)
        for (const timezone of TIMEZONES) {
          const input = {
            groupBy: "timeseries",
            timezone,
            granularity,
            start: NOW - 9 * 86_400_000,
            end: NOW - 7_000,
          } as AnalyticsQueryInput;
          const [a, b] = await Promise.all([
            analytics(seeded.workspace, input, NOW, postgres),
            analytics(seeded.workspace, input, NOW, clickhouse),
          ]);
          expect(b, `${timezone} ${granularity}`).toEqual(a);
          expect(a.granularity).toBe(granularity);
          expect((a.data ?? []).filter((r) => r.clicks > 0).length, `${timezone} ${granularity} buckets with clicks`).toBeGreaterThan(3);
        }
    },
    SLOW,
  );

  test(
    "ClickHouse's plans read its rollups, as PostgreSQL's read its own",
    async () => {
      const year = {
        workspaceId: seeded.workspace.id,
        start: new Date(NOW - 365 * 86_400_000),
        end: new Date(NOW),
        filters: { bots: "exclude" },
      };
      const cases: [string, Parameters<ClickHouseClickStore["plan"]>[0], string][] = [
        ["count", { kind: "count", query: year } as never, "day-rollup"],
        ["days in UTC", { kind: "timeseries", query: year, unit: "day", timezone: "UTC" } as never, "day-rollup"],
        ["countries", { kind: "top", query: year, group: "countries", limit: 10 } as never, "day-rollup"],
        ["tags", { kind: "top", query: year, group: "tags", limit: 10 } as never, "day-rollup"],
        [
          "links of a country",
          { kind: "top", query: { ...year, filters: { bots: "exclude", country: "US" } }, group: "links", limit: 10 } as never,
          "link-day-rollup",
        ],
        [
          "destinations of a country",
          { kind: "top", query: { ...year, filters: { bots: "exclude", country: "US" } }, group: "destinations", limit: 10 } as never,
          "destination-day-rollup",
        ],
        [
          "destinations of a device, bots only",
          { kind: "top", query: { ...year, filters: { bots: "only", device: "mobile" } }, group: "destinations", limit: 100 } as never,
          "destination-day-rollup",
        ],
        [
          "destinations of a browser (any case)",
          { kind: "top", query: { ...year, filters: { bots: "exclude", browser: "FIREFOX" } }, group: "destinations", limit: 100 } as never,
          "destination-day-rollup",
        ],
        [
          "a folder's devices",
          { kind: "top", query: { ...year, filters: { bots: "exclude", folder: "promo" } }, group: "devices", limit: 10 } as never,
          "link-day-rollup",
        ],
        ["days in New York", { kind: "timeseries", query: year, unit: "day", timezone: "America/New_York" } as never, "events"],
      ];
      for (const [name, q, source] of cases) {
        const { plan } = await clickhouse.plan(q);
        expect(plan.source, name).toBe(source);
        if (plan.source !== "events") expect(plan.days.length, `${name}: days read from the rollups`).toBeGreaterThan(300);
        expect(await clickhouse.query(q), name).toEqual(await postgres.query(q));
      }
    },
    SLOW,
  );

  test("the CSV export: the same rows in the same order", async () => {
    const text = async (store: ClickStore, filter: Partial<AnalyticsQueryInput>) => {
      const csv = await exportClicks(seeded.workspace, { interval: "1y", ...filter }, NOW, store);
      return new Response(csv.stream).text();
    };
    for (const filter of [FILTERS.none, FILTERS.folder, FILTERS.two, FILTERS["bots only"]]) {
      const [a, b] = await Promise.all([text(postgres, filter), text(clickhouse, filter)]);
      expect(a.split("\n").length).toBeGreaterThan(filter === FILTERS.none ? 1000 : 2);
      expect(b).toEqual(a);
    }
  });
});
