import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickEvent, ClickStore, StoreQuery } from "../../lib/analytics/model.ts";
import { analyticsReport, type AnalyticsReport, type PageParams } from "../../lib/analytics/reports/report.ts";
import type { AnalyticsWorkspace } from "../../lib/analytics/reports/service.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { answerWith, postgresReaders } from "../../lib/analytics/store/execute.ts";
import { planQuery } from "../../lib/analytics/store/plan.ts";
import { buildRollupDay } from "../../lib/analytics/store/rollup-build.ts";
import { db, disconnectDb } from "../../lib/db/client.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The Analytics page's 18 reports (totals, series, the previous period's, 14 panels) in a bounded
// number of statements: the click store's statements of one analyticsReport call are counted
// (a pool that notes each), and its answers are compared with each report asked alone, one
// statement per raw interval (how the page asked before), and with the raw events alone. The
// events span two 30-day periods; their whole days are built into the rollups but one, so a
// report reads built days, a day not built, the partial first day and today.

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 12); // 2026-11-20 12:00 UTC
const FIRST_DAY = Date.UTC(2026, 8, 20) / DAY; // 2026-09-20: before the previous period of 30 days
const TODAY = NOW / DAY - 0.5;
const NOT_BUILT = Date.UTC(2026, 10, 5) / DAY;
/** At most this many statements for one page (30-day range; the links of the links panel are read through Prisma, apart). */
const PAGE_STATEMENTS = 9;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let workspace: AnalyticsWorkspace;

const COUNTRIES = ["US", "DE", "FR", null];
const DEVICES = ["mobile", "desktop", "tablet"];
const BROWSERS = ["Safari", "Chrome", "Firefox", null];
const REFERRERS = ["t.co", "www.google.com", null];
const LANGUAGES = ["en", "de", null];

/** Four events a day at 03:00, 09:00, 15:00 and 21:00, their fields cycling; visitor keys change every day. */
function events(links: number[]): ClickEvent[] {
  const out: ClickEvent[] = [];
  for (let d = FIRST_DAY; d <= TODAY; d++)
    for (let i = 0; i < 4; i++) {
      const n = d * 4 + i;
      out.push({
        at: d * DAY + (3 + 6 * i) * 3_600_000,
        workspaceId: workspace.id,
        linkId: links[n % links.length],
        domain: "localhost:3000",
        target: "destination",
        country: COUNTRIES[n % 4],
        city: COUNTRIES[n % 4] === "DE" ? "Berlin" : null,
        referrerHost: REFERRERS[n % 3],
        referrerUrl: REFERRERS[n % 3] ? `https://${REFERRERS[n % 3]}/x` : null,
        device: DEVICES[n % 3],
        browser: BROWSERS[(n + d) % 4],
        os: null,
        bot: n % 7 === 0,
        qr: n % 5 === 0,
        // a bot is another visitor than the people of its day (its User-Agent makes its key)
        visitor: String(d * 10 + (n % 7 === 0 ? 5 : n % 3)),
        destination: `https://dest.example/${n % 2}`,
        language: LANGUAGES[n % 3],
      });
    }
  return out;
}

/** The click store over a pool that notes the text of every statement sent. */
function countingStore() {
  const sent: string[] = [];
  const query = (text: string | { text: string }, values?: unknown[]) => {
    sent.push(typeof text === "string" ? text : text.text);
    return pool.query(text as string, values);
  };
  return { store: new PostgresClickStore({ query } as unknown as pg.Pool), sent };
}

/** Each report asked alone, each raw interval by a statement of its own (the page before it shared statements). */
const aloneStore = {
  query: async (q: StoreQuery) => answerWith({ ...postgresReaders(pool), raw: undefined }, q, await planQuery(pool, q)),
} as unknown as ClickStore;
/** Every report from the raw events alone. */
const eventsStore = {
  query: (q: StoreQuery) => answerWith({ ...postgresReaders(pool), raw: undefined }, q, { source: "events" }),
} as unknown as ClickStore;

const report = (params: PageParams, store: ClickStore) => analyticsReport(workspace, params, { now: NOW, store, strict: true });
const figures = (r: AnalyticsReport) => ({ total: r.total, series: r.series, previous: r.previous, panels: r.panels });
/** Panels' rows in one order (ties at equal clicks and visitors are ordered differently by SQL and by the rollup merge). */
const unordered = (r: AnalyticsReport) => ({
  ...figures(r),
  panels: Object.fromEntries(
    Object.entries(r.panels).map(([k, a]) => [k, { ...a, data: a!.data!.map((row) => JSON.stringify(row)).sort() }]),
  ),
});

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  workspace = await db().workspace.create({ data: { slug: `stmts-${process.pid}`, name: "Statements", plan: "business" } });
  const links = [];
  for (const [code, url, folder] of [
    ["alpha", "https://dest.example/a?utm_source=news&utm_medium=email&utm_campaign=spring%20sale", "mkt"],
    ["beta", "https://dest.example/b?utm_source=ads", "mkt/sub"],
    ["gamma", "https://dest.example/c", ""],
  ] as const)
    links.push(await db().link.create({ data: { workspaceId: workspace.id, code, url, folder, domainKey: 0 } }));
  const tag = await db().tag.create({ data: { workspaceId: workspace.id, name: "Spring", nameKey: "spring", color: "green" } });
  await db().linkTag.create({ data: { linkId: links[0].id, tagId: tag.id } });
  await new PostgresClickStore(pool).record(events(links.map((l) => l.id)));
  for (let d = FIRST_DAY; d < TODAY; d++) if (d !== NOT_BUILT) await buildRollupDay(pool, d);
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await disconnectDb();
  await database?.drop();
});

describe("the Analytics page's statements", () => {
  it(`reads its 18 reports in at most ${PAGE_STATEMENTS} statements, the built days once`, async () => {
    for (const params of [{}, { interval: "7d" }] as PageParams[]) {
      const { store, sent } = countingStore();
      const page = await report(params, store);
      expect(page.total.clicks).toBeGreaterThan(0);
      expect(Object.keys(page.panels)).toHaveLength(14);
      expect(page.previous).not.toBeNull();
      expect(
        sent.filter((s) => s.includes("analytics.click_day_done")),
        JSON.stringify(params),
      ).toHaveLength(1);
      expect(sent.length, `${JSON.stringify(params)}:\n${sent.join("\n---\n")}`).toBeLessThanOrEqual(PAGE_STATEMENTS);
      // each report alone, as the page asked before: several times as many
      const before = countingStore();
      const alone = { query: (q: StoreQuery) => before.store.query(q) } as unknown as ClickStore;
      await report(params, alone);
      expect(before.sent.length).toBeGreaterThan(3 * sent.length);
    }
  });

  it("answers as each report asked alone and as the raw events, for ranges and filters of every read", async () => {
    const cases: PageParams[] = [
      {},
      { interval: "7d" },
      { interval: "24h" },
      { interval: "90d" },
      { start: String((NOW - 12.25 * DAY) / 1000), end: String((NOW - 2.5 * DAY) / 1000) },
      { country: "DE" },
      { device: "mobile", interval: "7d" },
      { folder: "mkt" },
      { tag: "spring" },
      { link: "alpha" },
      { bots: "include" },
      { utm_source: "news" },
    ];
    for (const params of cases) {
      const page = await report(params, countingStore().store);
      expect(figures(page), JSON.stringify(params)).toEqual(figures(await report(params, aloneStore)));
      expect(unordered(page), JSON.stringify(params)).toEqual(unordered(await report(params, eventsStore)));
    }
  });
});
