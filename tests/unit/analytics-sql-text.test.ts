import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type pg from "pg";
import type { ClickEvent, ClickFilters, ClickQuery, StoreQuery, TopGroup } from "../../lib/analytics/model.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { createComingPartitions } from "../../lib/analytics/store/partitions.ts";
import { applyRetention } from "../../lib/analytics/store/retention.ts";
import { buildPendingRollups, buildRollupDay, unmarkRollupDays } from "../../lib/analytics/store/rollup-build.ts";
import { VisitorSalts } from "../../lib/analytics/ingest/visitor.ts";

// The statements the click store sends, as text, name and parameters, for many report shapes: the
// migrations' indexes, the prepared statements' names and the integration tests depend on them, so
// a change of the store's code must not change them unnoticed. A fake pool records every statement
// and answers the few whose answer decides what is sent next (built days, a link set's ids).

const DAY = 86_400_000;
const day = (iso: string) => Date.parse(iso) / DAY;
// a long range over whole days: 2026-10-01 .. 2026-10-11 (exclusive), built but for 2026-10-05
const LONG = { start: new Date("2026-10-01T06:00:00Z"), end: new Date("2026-10-11T06:00:00Z") };
const BUILT = [1, 2, 3, 5, 6, 7, 8, 9].map((d) => day("2026-10-01") + d);
const SHORT = { start: new Date("2026-10-03T06:00:00Z"), end: new Date("2026-10-04T06:00:00Z") };

type Sent = { name?: string; text: string; values?: unknown[] };

function fakePool() {
  const sent: Sent[] = [];
  const query = async (textOrConfig: string | { name?: string; text: string; values?: unknown[] }, values?: unknown[]) => {
    const s: Sent = typeof textOrConfig === "string" ? { text: textOrConfig, values } : { ...textOrConfig };
    sent.push(s);
    const t = s.text;
    if (t.includes("from analytics.click_day_done")) {
      const [from, to] = s.values as [number, number];
      return { rows: BUILT.filter((d) => d >= from && d < to).map((d) => ({ d })), rowCount: 0 };
    }
    if (t.includes("array_agg(id)")) return { rows: [{ ids: [3, 4] }], rowCount: 1 };
    if (t.includes("pg_inherits")) return { rows: [{ name: "click_event_y2026m09" }, { name: "click_event_y2020m01" }], rowCount: 2 };
    if (t.includes("analytics.visitor_salt") && t.includes("insert")) return { rows: [{ salt: Buffer.alloc(32, 1) }], rowCount: 1 };
    return { rows: [], rowCount: 0 };
  };
  const pool = { query, connect: async () => ({ query, release: () => {}, on: () => {}, off: () => {} }) } as unknown as pg.Pool;
  return { pool, sent };
}

// parameters as text a snapshot keeps: instants as ISO, binary arrays by their digest
const shown = (v: unknown): unknown =>
  v instanceof Date
    ? v.toISOString()
    : Buffer.isBuffer(v)
      ? `buffer:${createHash("sha256").update(v).digest("hex").slice(0, 16)}`
      : Array.isArray(v)
        ? v.map(shown)
        : v;
// the statements of one call, sorted (what runs in parallel may be sent in any order)
const statements = (sent: Sent[]) =>
  sent
    .map((s) => JSON.stringify({ name: s.name, text: s.text, values: s.values?.map(shown) }))
    .sort()
    .map((s) => JSON.parse(s) as Sent);

async function sentFor(q: StoreQuery): Promise<Sent[]> {
  const { pool, sent } = fakePool();
  await new PostgresClickStore(pool).query(q);
  return statements(sent);
}

const GROUPS: TopGroup[] = [
  "countries",
  "cities",
  "referrers",
  "devices",
  "browsers",
  "os",
  "links",
  "qr",
  "tags",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "destinations",
];
const FILTERS: Record<string, Omit<ClickFilters, "bots">> = {
  none: {},
  country: { country: "us" },
  city: { city: "Paris" },
  referrerDirect: { referrer: "(direct)" },
  referrer: { referrer: "T.co" },
  device: { device: "mobile" },
  browser: { browser: "Firefox" },
  os: { os: "iOS" },
  qr: { qr: true },
  link: { linkId: 7 },
  folder: { folder: "promo_1%" },
  tags: { tags: ["blue", "red"] },
  twoFilters: { country: "US", device: "mobile" },
};
const BOTS = ["exclude", "include", "only"] as const;

function shapes(): [string, StoreQuery][] {
  const out: [string, StoreQuery][] = [];
  for (const [range, r] of Object.entries({ long: LONG, short: SHORT }))
    for (const [f, filters] of Object.entries(FILTERS))
      for (const bots of BOTS) {
        const query: ClickQuery = { workspaceId: 11, ...r, filters: { ...filters, bots } };
        const at = `${range} ${f} bots=${bots}`;
        out.push([`${at} count`, { kind: "count", query }]);
        out.push([`${at} days UTC`, { kind: "timeseries", query, unit: "day", timezone: "UTC" }]);
        out.push([`${at} days New York`, { kind: "timeseries", query, unit: "day", timezone: "America/New_York" }]);
        out.push([`${at} hours UTC`, { kind: "timeseries", query, unit: "hour", timezone: "UTC" }]);
        for (const group of GROUPS) out.push([`${at} top ${group}`, { kind: "top", query, group, limit: 10 }]);
      }
  return out;
}

// one or more shapes of every way a report is read (the events, the day rollups, the per-link rollups,
// the destination rollups)
const FULL_TEXT = [
  ...["count", "days UTC", "hours UTC", "top countries", "top cities", "top links", "top tags", "top utm_source"].map(
    (k) => `long none bots=exclude ${k}`,
  ),
  ...["count", "days UTC", "top browsers", "top links", "top tags", "top utm_medium"].map((k) => `long country bots=only ${k}`),
  "long browser bots=exclude top os",
  "long device bots=only top destinations",
  "long referrerDirect bots=exclude top countries",
  "long city bots=exclude count",
  "long twoFilters bots=exclude count",
  ...["count", "days UTC", "top links", "top countries", "top cities", "top browsers", "top tags"].map(
    (k) => `long link bots=include ${k}`,
  ),
  ...["count", "top cities", "top utm_campaign"].map((k) => `long folder bots=exclude ${k}`),
  ...["count", "top referrers"].map((k) => `long tags bots=exclude ${k}`),
  ...["count", "top countries", "top tags", "days New York"].map((k) => `short none bots=exclude ${k}`),
];

describe("the click store's statements", () => {
  it("every report shape sends the statements it always sent (digest per shape)", async () => {
    const digests: Record<string, string> = {};
    for (const [name, q] of shapes())
      digests[name] = createHash("sha256")
        .update(JSON.stringify(await sentFor(q)))
        .digest("hex")
        .slice(0, 16);
    expect(digests).toMatchSnapshot();
  });

  it("reports of one shape per source send these statements (full text)", async () => {
    const texts: Record<string, Sent[]> = {};
    const all = new Map(shapes());
    for (const name of FULL_TEXT) texts[name] = await sentFor(all.get(name)!);
    expect(texts).toMatchSnapshot();
  });

  it("a page's reports asked together send these statements (shared where store/plan.ts sharedReads says)", async () => {
    const { pool, sent } = fakePool();
    const query: ClickQuery = { workspaceId: 11, ...LONG, filters: { bots: "exclude" } };
    const page = new PostgresClickStore(pool).page({ start: new Date(LONG.start.getTime() - 10 * DAY), end: LONG.end });
    const head: StoreQuery[] = [
      { kind: "count", query },
      { kind: "timeseries", query, unit: "day", timezone: "UTC" },
    ];
    await page.queryAll!(head);
    const headSent = statements(sent);
    sent.length = 0;
    await page.queryAll!(GROUPS.map((group): StoreQuery => ({ kind: "top", query, group, limit: 8 })));
    expect({ head: headSent, panels: statements(sent) }).toMatchSnapshot();
  });

  it("writing, building, retention, partitions, salts and the export send these statements", async () => {
    const { pool, sent } = fakePool();
    const event: ClickEvent = {
      at: Date.parse("2026-10-02T10:00:00Z"),
      workspaceId: 11,
      linkId: 7,
      domain: "s.test",
      target: "destination",
      country: "US",
      city: null,
      referrerHost: "t.co",
      referrerUrl: "https://t.co/x",
      device: "mobile",
      browser: "Safari",
      os: "iOS",
      bot: false,
      qr: true,
      visitor: "-12345",
    };
    const store = new PostgresClickStore(pool);
    const steps: Record<string, Sent[]> = {};
    const step = async (name: string, run: () => Promise<unknown>) => {
      sent.length = 0;
      await run();
      steps[name] = statements(sent);
    };
    await step("record", () => store.record([event, { ...event, at: Date.parse("2026-10-03T23:59:59Z") }]));
    await step("build one day", () => buildRollupDay(pool, day("2026-10-02")));
    await step("unmark", () => unmarkRollupDays(pool, [day("2026-10-02")]));
    await step("build pending", () => buildPendingRollups(pool, Date.parse("2026-10-04T12:00:00Z"), 2));
    await step("coming partitions", () => createComingPartitions(pool, Date.parse("2026-10-04T12:00:00Z")));
    await step("retention", () => applyRetention(pool, Date.parse("2026-10-04T12:00:00Z")));
    const salts = new VisitorSalts(store);
    await step("salt", () => salts.saltFor(day("2026-10-02")));
    // the candidate salt is random: its size is what stays
    for (const s of steps.salt) s.values = s.values?.map((v) => (typeof v === "string" && v.startsWith("buffer:") ? "32 random bytes" : v));
    await step("prune salts", () => salts.prune(day("2026-10-04")));
    await step("export", async () => {
      for await (const page of store.events({ workspaceId: 11, ...LONG, filters: { country: "US", tags: ["blue"], bots: "exclude" } }))
        void page;
    });
    expect(steps).toMatchSnapshot();
  });
});
