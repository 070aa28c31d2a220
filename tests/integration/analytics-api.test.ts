import { parse } from "csv-parse/sync";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickEvent, ClickQuery } from "../../lib/analytics/model.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { listMonthPartitions } from "../../lib/analytics/store/partitions.ts";
import { planQuery } from "../../lib/analytics/store/plan.ts";
import { applyRetention } from "../../lib/analytics/store/retention.ts";
import { buildRollupDay, unmarkRollupDays } from "../../lib/analytics/store/rollup-build.ts";
import { db } from "../../lib/db/client.ts";
import { client, makeDomain, makeWorkspace, startApiTest, TEST_PLANS, type ApiTestEnv } from "../support/api.ts";

// GET /api/v1/analytics and /export over real HTTP against events stored with known times and
// fields: every answer below is computed by hand from the table of events (see EVENTS).

let env: ApiTestEnv;
let pool: pg.Pool;
let store: PostgresClickStore;
let a: Awaited<ReturnType<typeof makeWorkspace>>;
let api: ReturnType<typeof client>;
const DAY = 86_400_000;
/** The plan of a count over `q` (store/plan.ts), and the built days it reads from the rollups (undefined: the events alone). */
const countPlan = (q: ClickQuery) => planQuery(pool, { kind: "count", query: q });
const rolledDays = async (q: ClickQuery) => {
  const plan = await countPlan(q);
  return plan.source === "events" ? undefined : plan.days;
};

// Around the end of daylight saving time in New York (2026-11-01 06:00Z: EDT -4 -> EST -5).
const R = "start=2026-10-30T00:00:00Z&end=2026-11-03T00:00:00Z";
type Ev = [
  at: string,
  link: string,
  country: string | null,
  city: string | null,
  device: string,
  browser: string | null,
  os: string | null,
  referrer: string | null,
  bot: boolean,
  qr: boolean,
  visitor: number,
];
const EVENTS: Ev[] = [
  ["2026-10-31T03:30:00Z", "alpha", "US", "New York", "mobile", "Safari", "iOS", "t.co", false, true, 1], // NY Oct 30, 23:30 EDT
  ["2026-10-31T04:30:00Z", "alpha", "US", "New York", "mobile", "Safari", "iOS", "t.co", false, false, 1], // NY Oct 31, 00:30
  ["2026-11-01T03:59:00Z", "beta", "DE", "Berlin", "desktop", "Chrome", "Windows", null, false, false, 2], // NY Oct 31, 23:59 EDT
  ["2026-11-01T04:30:00Z", "beta", "DE", "Berlin", "desktop", "Chrome", "Windows", "www.google.com", false, false, 2], // NY Nov 1, 00:30 EDT
  ["2026-11-02T04:30:00Z", "gamma", "FR", null, "desktop", "Firefox", "macOS", "www.google.com", false, true, 3], // NY Nov 1, 23:30 EST (a 25-hour day)
  ["2026-11-02T05:00:00Z", "alpha", "US", "Boston", "tablet", "Safari", "iOS", null, false, false, 4], // NY Nov 2, 00:00 EST
  ["2026-11-01T12:00:00Z", "alpha", "US", null, "other", null, null, null, true, false, 5], // a bot
  ["2026-11-01T13:00:00Z", "beta", null, null, "other", null, null, null, true, false, 6], // a bot
  // start of daylight saving time (2026-03-08 07:00Z: EST -5 -> EDT -4): a 23-hour day
  ["2026-03-08T04:30:00Z", "gamma", "CA", null, "mobile", "Chrome", "Android", null, false, false, 7], // NY Mar 7, 23:30 EST
  ["2026-03-09T03:30:00Z", "gamma", "CA", null, "mobile", "Chrome", "Android", null, false, false, 8], // NY Mar 8, 23:30 EDT
  ["2026-03-09T04:30:00Z", "gamma", "CA", null, "mobile", "Chrome", "Android", null, false, false, 9], // NY Mar 9, 00:30 EDT
];

function event(workspaceId: number, linkIds: Record<string, number>, e: Ev): ClickEvent {
  const [at, link, country, city, device, browser, os, referrer, bot, qr, visitor] = e;
  return {
    at: Date.parse(at),
    workspaceId,
    linkId: linkIds[link],
    domain: "localhost:3000",
    target: "destination",
    country,
    city,
    referrerHost: referrer,
    referrerUrl: referrer ? `https://${referrer}/page` : null,
    device,
    browser,
    os,
    bot,
    qr,
    visitor: String(visitor),
  };
}

/** Links by code (with their folders), on the default domain or on `domainId`. */
async function links(workspaceId: number, spec: Record<string, string>, domainId?: number) {
  const ids: Record<string, number> = {};
  for (const [code, folder] of Object.entries(spec)) {
    const data = { workspaceId, code, url: `https://dest.example/${code}`, folder, domainId: domainId ?? null, domainKey: domainId ?? 0 };
    ids[code] = (await db().link.create({ data })).id;
  }
  return ids;
}

beforeAll(async () => {
  env = await startApiTest({ plans: { ...TEST_PLANS, short: { ...TEST_PLANS.team, name: "Short", analyticsRetentionDays: 7 } as never } });
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  store = new PostgresClickStore(pool);
  a = await makeWorkspace("team");
  api = client(env.app, a.key);
  const ids = await links(a.workspace.id, { alpha: "mkt/spring", beta: "mkt", gamma: "other" });
  await store.record(EVENTS.map((e) => event(a.workspace.id, ids, e)));
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await env?.stop();
});

/** GET /api/v1/analytics?query with a workspace's key, expecting `status`; the body. */
const answerOf = async (apiClient: ReturnType<typeof client>, query: string, status = 200) => {
  const r = await apiClient.get(`/api/v1/analytics?${query}`);
  expect(r.status, r.text).toBe(status);
  return r.body;
};
const get = (query: string, status = 200) => answerOf(api, query, status);

/**
 * A team workspace of its own with the links alpha, beta and gamma and every event of EVENTS, for
 * a test that changes its events or links (the shared workspace `a` is only read).
 */
let seeds = 0;
async function seeded() {
  const w = await makeWorkspace("team");
  // Codes are unique per domain: the same three codes live on a domain of the workspace's own.
  const domain = await makeDomain(w.workspace.id, `seed-${++seeds}-${Date.now().toString(36)}.analytics.test`);
  const ids = await links(w.workspace.id, { alpha: "mkt/spring", beta: "mkt", gamma: "other" }, domain.id);
  await store.record(EVENTS.map((e) => event(w.workspace.id, ids, e)));
  const wapi = client(env.app, w.key);
  return { ...w, api: wapi, get: (query: string, status = 200) => answerOf(wapi, query, status) };
}
const strip = (rows: Record<string, unknown>[]) =>
  rows.map(({ clicks, visitors, ...k }) => [Object.values(k).length === 1 ? Object.values(k)[0] : k, clicks, visitors]);

describe("answers", () => {
  it("count: clicks and unique visitors, bots left out unless asked for", async () => {
    expect(await get(R)).toEqual({
      groupBy: "count",
      start: "2026-10-30T00:00:00.000Z",
      end: "2026-11-03T00:00:00.000Z",
      timezone: "UTC",
      clicks: 6,
      visitors: 4,
    });
    expect(await get(`${R}&bots=include`)).toMatchObject({ clicks: 8, visitors: 6 });
    expect(await get(`${R}&bots=only`)).toMatchObject({ clicks: 2, visitors: 2 });
  });

  it("timeseries: days in UTC", async () => {
    const r = await get(`${R}&groupBy=timeseries`);
    expect(r.granularity).toBe("day");
    expect(r.data.map((b: { start: string; clicks: number; visitors: number }) => [b.start, b.clicks, b.visitors])).toEqual([
      ["2026-10-30T00:00:00+00:00", 0, 0],
      ["2026-10-31T00:00:00+00:00", 2, 1],
      ["2026-11-01T00:00:00+00:00", 2, 1],
      ["2026-11-02T00:00:00+00:00", 2, 2],
    ]);
  });

  it("timeseries: days in America/New_York across midnight UTC and the end of daylight saving time", async () => {
    const r = await get("groupBy=timeseries&timezone=America/New_York&start=2026-10-30T04:00:00Z&end=2026-11-03T05:00:00Z");
    expect(r.data.map((b: { start: string; clicks: number; visitors: number }) => [b.start, b.clicks, b.visitors])).toEqual([
      ["2026-10-30T00:00:00-04:00", 1, 1],
      ["2026-10-31T00:00:00-04:00", 2, 2],
      ["2026-11-01T00:00:00-04:00", 2, 2], // 25 hours long
      ["2026-11-02T00:00:00-05:00", 1, 1],
    ]);
  });

  it("timeseries: days in America/New_York across the start of daylight saving time", async () => {
    const r = await get("groupBy=timeseries&timezone=America/New_York&start=2026-03-07T05:00:00Z&end=2026-03-10T04:00:00Z");
    expect(r.data.map((b: { start: string; clicks: number }) => [b.start, b.clicks])).toEqual([
      ["2026-03-07T00:00:00-05:00", 1],
      ["2026-03-08T00:00:00-05:00", 1], // 23 hours long
      ["2026-03-09T00:00:00-04:00", 1],
    ]);
  });

  it("timeseries: hours for a range up to 48 hours", async () => {
    const r = await get("groupBy=timeseries&start=2026-11-01T03:00:00Z&end=2026-11-01T06:00:00Z");
    expect(r.granularity).toBe("hour");
    expect(r.data.map((b: { start: string; clicks: number }) => [b.start, b.clicks])).toEqual([
      ["2026-11-01T03:00:00+00:00", 1],
      ["2026-11-01T04:00:00+00:00", 1],
      ["2026-11-01T05:00:00+00:00", 0],
    ]);
  });

  it("top-N answers, sorted by clicks, then visitors", async () => {
    expect((await get(`${R}&groupBy=countries`)).data).toEqual([
      { country: "US", name: "United States", clicks: 3, visitors: 2 },
      { country: "DE", name: "Germany", clicks: 2, visitors: 1 },
      { country: "FR", name: "France", clicks: 1, visitors: 1 },
    ]);
    expect(strip((await get(`${R}&groupBy=cities`)).data)).toEqual([
      [{ city: "Berlin", country: "DE" }, 2, 1],
      [{ city: "New York", country: "US" }, 2, 1],
      [{ city: "Boston", country: "US" }, 1, 1],
      [{ city: null, country: "FR" }, 1, 1],
    ]);
    expect(strip((await get(`${R}&groupBy=referrers`)).data)).toEqual([
      ["www.google.com", 2, 2],
      [null, 2, 2],
      ["t.co", 2, 1],
    ]);
    expect(strip((await get(`${R}&groupBy=devices`)).data)).toEqual([
      ["desktop", 3, 2],
      ["mobile", 2, 1],
      ["tablet", 1, 1],
    ]);
    expect(strip((await get(`${R}&groupBy=browsers`)).data)).toEqual([
      ["Safari", 3, 2],
      ["Chrome", 2, 1],
      ["Firefox", 1, 1],
    ]);
    expect(strip((await get(`${R}&groupBy=os`)).data)).toEqual([
      ["iOS", 3, 2],
      ["Windows", 2, 1],
      ["macOS", 1, 1],
    ]);
    expect(strip((await get(`${R}&groupBy=qr`)).data)).toEqual([
      [false, 4, 3],
      [true, 2, 2],
    ]);
    expect((await get(`${R}&groupBy=links`)).data).toEqual([
      { link: { code: "alpha", domain: "localhost:3000", url: "https://dest.example/alpha" }, clicks: 3, visitors: 2 },
      { link: { code: "beta", domain: "localhost:3000", url: "https://dest.example/beta" }, clicks: 2, visitors: 1 },
      { link: { code: "gamma", domain: "localhost:3000", url: "https://dest.example/gamma" }, clicks: 1, visitors: 1 },
    ]);
    expect((await get(`${R}&groupBy=countries&limit=1`)).data).toEqual([{ country: "US", name: "United States", clicks: 3, visitors: 2 }]);
  });

  it("filters, alone and together", async () => {
    const clicks = async (q: string) => (await get(`${R}&${q}`)).clicks;
    expect(await clicks("link=alpha")).toBe(3);
    expect(await clicks("folder=mkt")).toBe(5); // mkt and mkt/spring
    expect(await clicks("folder=mkt/spring")).toBe(3);
    expect(await clicks("country=de")).toBe(2);
    expect(await clicks("city=berlin")).toBe(2);
    expect(await clicks("device=desktop")).toBe(3);
    expect(await clicks("browser=safari")).toBe(3);
    expect(await clicks("os=Windows")).toBe(2);
    expect(await clicks("referrer=t.co")).toBe(2);
    expect(await clicks(`referrer=${encodeURIComponent("(direct)")}`)).toBe(2);
    expect(await clicks("qr=true")).toBe(2);
    expect(await clicks("country=US&device=mobile")).toBe(2);
    expect(await clicks("link=beta&bots=include")).toBe(3);
    expect(strip((await get(`${R}&groupBy=browsers&folder=mkt`)).data)).toEqual([
      ["Safari", 3, 2],
      ["Chrome", 2, 1],
    ]);
  });
});

describe("limit", () => {
  it("top-N answers have 10 rows unless limit says otherwise (1..100)", async () => {
    const w = await makeWorkspace("team");
    const ids = await links(w.workspace.id, { many: "" });
    const countries = ["AR", "AT", "AU", "BE", "BR", "CA", "CH", "CL", "CN", "CZ", "DE", "DK"];
    const at = new Date(Date.now() - 3_600_000).toISOString();
    await store.record(
      countries.map((c, i) =>
        event(w.workspace.id, ids, [at, "many", c, null, "desktop", "Chrome", "Windows", null, false, false, 100 + i]),
      ),
    );
    const wapi = client(env.app, w.key);
    expect((await answerOf(wapi, "groupBy=countries&interval=24h")).data).toHaveLength(10);
    expect((await answerOf(wapi, "groupBy=countries&interval=24h&limit=12")).data).toHaveLength(12);
    expect((await answerOf(wapi, "groupBy=countries&interval=24h&limit=3")).data).toHaveLength(3);
    await answerOf(wapi, "groupBy=countries&interval=24h&limit=101", 400);
    await answerOf(wapi, "groupBy=countries&interval=24h&limit=0", 400);
  });
});

describe("daily rollups", () => {
  it("give the same answers as the raw events, and a late event for a built day is counted", async () => {
    const s = await seeded();
    const queries = [
      R,
      `${R}&bots=include`,
      `${R}&bots=only`,
      `${R}&groupBy=timeseries`,
      ...["countries", "cities", "referrers", "devices", "browsers", "os", "links", "qr"].flatMap((g) => [
        `${R}&groupBy=${g}`,
        `${R}&groupBy=${g}&bots=include`,
      ]),
      "start=2026-10-30T12:00:00Z&end=2026-11-02T12:00:00Z&groupBy=countries", // partial first and last days
      "start=2026-10-30T12:00:00Z&end=2026-11-02T12:00:00Z&groupBy=timeseries",
    ];
    const answers = async () => Promise.all(queries.map((q) => s.get(q)));
    const raw = await answers();
    for (const day of ["2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02"]) await buildRollupDay(pool, Date.parse(day) / DAY);
    const q = {
      workspaceId: s.workspace.id,
      start: new Date("2026-10-30T00:00:00Z"),
      end: new Date("2026-11-03T00:00:00Z"),
      filters: { bots: "exclude" as const },
    };
    expect(await rolledDays(q)).toHaveLength(4); // the rollups are what answers now
    expect(await answers()).toEqual(raw);

    // a late event for a built day: the day is read raw again until it is rebuilt
    const ids = Object.fromEntries((await db().link.findMany({ where: { workspaceId: s.workspace.id } })).map((l) => [l.code, l.id]));
    const late = event(s.workspace.id, ids, [
      "2026-11-01T20:00:00Z",
      "gamma",
      "FR",
      null,
      "desktop",
      "Firefox",
      "macOS",
      null,
      false,
      false,
      99,
    ]);
    await store.record([late]);
    expect(await rolledDays(q)).toHaveLength(3);
    expect(await s.get(R)).toMatchObject({ clicks: 7, visitors: 5 });
    await buildRollupDay(pool, Date.parse("2026-11-01") / DAY);
    expect(await rolledDays(q)).toHaveLength(4);
    expect(await s.get(R)).toMatchObject({ clicks: 7, visitors: 5 });
    expect((await s.get(`${R}&groupBy=countries`)).data[1]).toMatchObject({ country: "FR", clicks: 2, visitors: 2 });
  });

  it("answer filtered, tag and UTM reports from the rollups alone, as the raw events did", async () => {
    const s = await seeded();
    await s.api.patch("/api/v1/links/alpha", {
      url: "https://dest.example/alpha?utm_source=news&utm_campaign=fall",
      tags: ["fall", "promo"],
    });
    await s.api.patch("/api/v1/links/beta", { url: "https://dest.example/beta?utm_source=ads", tags: ["Promo"] });
    await s.api.patch("/api/v1/links/gamma", { url: "https://dest.example/gamma?utm_source=mail", tags: ["fall"] });
    const filters = [
      "country=US",
      "country=us",
      "device=mobile",
      "browser=safari",
      "os=WINDOWS",
      "referrer=t.co",
      "referrer=(direct)",
      "qr=true",
      "country=US&bots=include",
      "device=other&bots=only",
    ];
    const groups = ["count", "timeseries", "countries", "cities", "referrers", "devices", "browsers", "os", "qr"];
    const rolled = [
      ...filters.flatMap((f) => groups.map((g) => `${R}&groupBy=${g}&${f}`)),
      ...["tags", "utm_source", "utm_campaign"].flatMap((g) => [`${R}&groupBy=${g}`, `${R}&groupBy=${g}&bots=include`]),
      "start=2026-10-30T12:00:00Z&end=2026-11-02T03:00:00Z&groupBy=referrers&country=US", // partial days (no events in their raw parts)
      `${R}&groupBy=links&country=US`,
      `${R}&groupBy=tags&device=desktop`,
      // a link, folder or tag filter: the per-link rows of its links (cities: the city rows, and the
      // country rows less them for clicks without a city)
      ...["link=alpha", "folder=mkt", "tag=promo", "tag=fall&tag=PROMO&bots=include", "link=beta&bots=only"].flatMap((f) =>
        [...groups, "links", "tags", "utm_source"].map((g) => `${R}&groupBy=${g}&${f}`),
      ),
      `${R}&tag=nope`, // a tag on no link: nothing to read
      `${R}&groupBy=cities&tag=nope`,
      // link-based groups under a filter: the per-link rows of the built days
      ...["links", "tags", "utm_source"].flatMap((g) =>
        ["country=CA", "device=mobile", "browser=CHROME", "os=android", "qr=false", "country=CA&bots=include"].map(
          (f) => `start=2026-02-25T00:00:00Z&end=2026-04-03T00:00:00Z&groupBy=${g}&${f}`,
        ),
      ),
    ];
    // reports the rollups cannot answer: two filters, a city filter
    const notRolled = [
      `${R}&country=US&device=mobile`,
      `${R}&city=berlin`,
      `${R}&groupBy=countries&folder=mkt&device=mobile`,
      `${R}&link=alpha&qr=true`,
    ];
    const answers = (qs: string[]) => Promise.all(qs.map((q) => s.get(q)));
    const days = ["2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02", "2026-03-08", "2026-03-09"].map((d) => Date.parse(d) / DAY);
    await unmarkRollupDays(pool, days); // perhaps built by another test: the first answers must come from the events
    const raw = await answers(rolled);
    // most answers have clicks in them (the comparison below would prove little on zeros)
    expect(raw.filter((r) => r.clicks > 0 || r.data?.some((d: { clicks: number }) => d.clicks > 0)).length).toBe(177);
    for (const day of days) await buildRollupDay(pool, day);

    // with the raw events of the built days gone, only the rollups can give the same answers
    const builtRange = (at: string) => (at >= "2026-10-30" && at < "2026-11-03") || (at >= "2026-03-01" && at < "2026-04-01");
    const { rowCount } = await pool.query(
      `delete from analytics.click_event where workspace_id = $1
       and (at >= '2026-10-30T00:00:00Z' and at < '2026-11-03T00:00:00Z' or at >= '2026-03-01T00:00:00Z' and at < '2026-04-01T00:00:00Z')`,
      [s.workspace.id],
    );
    expect(rowCount).toBe(11);
    try {
      expect(await answers(rolled)).toEqual(raw);
      for (const body of await answers(notRolled)) expect(body.clicks ?? body.data.length).toBe(0);
    } finally {
      const ids = Object.fromEntries((await db().link.findMany({ where: { workspaceId: s.workspace.id } })).map((l) => [l.code, l.id]));
      await store.record(EVENTS.filter(([at]) => builtRange(at)).map((e) => event(s.workspace.id, ids, e)));
      for (const day of days) await buildRollupDay(pool, day);
      await s.api.patch("/api/v1/links/alpha", { url: "https://dest.example/alpha", tags: [] });
      await s.api.patch("/api/v1/links/beta", { url: "https://dest.example/beta", tags: [] });
      await s.api.patch("/api/v1/links/gamma", { url: "https://dest.example/gamma", tags: [] });
    }
    expect(await answers(rolled.slice(0, 9))).toEqual(raw.slice(0, 9));
  });
  it("under a folder or tag filter a visitor counts once per link clicked, from the events and from the rollups alike", async () => {
    const w = await makeWorkspace("team");
    const wapi = client(env.app, w.key);
    const ids = await links(w.workspace.id, { f1: "camp", f2: "camp/sub", lone: "" });
    await wapi.patch("/api/v1/links/f1", { tags: ["t"] });
    await wapi.patch("/api/v1/links/f2", { tags: ["t"] });
    const at = "2026-10-10T10:00:00Z";
    const base: Ev = [at, "f1", "US", null, "desktop", "Chrome", "Windows", null, false, false, 1];
    // visitor 1 clicks f1 twice and f2 once; visitor 2 clicks f2 and the link outside the folder
    const evs: Ev[] = [
      base,
      base,
      [at, "f2", ...base.slice(2, 10), 1] as Ev,
      [at, "f2", ...base.slice(2, 10), 2] as Ev,
      [at, "lone", ...base.slice(2, 10), 2] as Ev,
    ];
    await store.record(evs.map((e) => event(w.workspace.id, ids, e)));
    const range = "start=2026-10-09T00:00:00Z&end=2026-10-12T00:00:00Z";
    const ask = async () =>
      Promise.all(
        [
          "",
          "folder=camp",
          "tag=t",
          "link=f1",
          "groupBy=countries&folder=camp",
          "groupBy=links&tag=t",
          "groupBy=timeseries&folder=camp",
        ].map(async (q) => (await wapi.get(`/api/v1/analytics?${range}&${q}`)).body),
      );
    const day = Date.parse("2026-10-10") / DAY;
    await unmarkRollupDays(pool, [day]);
    const raw = await ask();
    expect(raw.slice(0, 4).map((r) => [r.clicks, r.visitors])).toEqual([
      [5, 2], // unique visitors of the day
      [4, 3], // f1: visitor 1; f2: visitors 1 and 2
      [4, 3],
      [2, 1],
    ]);
    expect(raw[4].data).toEqual([{ country: "US", name: "United States", clicks: 4, visitors: 3 }]);
    expect(
      raw[5].data.map((r: { link: { code: string }; clicks: number; visitors: number }) => [r.link.code, r.clicks, r.visitors]),
    ).toEqual([
      ["f2", 2, 2],
      ["f1", 2, 1],
    ]);
    expect(raw[6].data.map((b: { clicks: number; visitors: number }) => [b.clicks, b.visitors])).toEqual([
      [0, 0],
      [4, 3],
      [0, 0],
    ]);

    await buildRollupDay(pool, day);
    const campaign: ClickQuery = {
      workspaceId: w.workspace.id,
      start: new Date("2026-10-09"),
      end: new Date("2026-10-12"),
      filters: { folder: "camp", bots: "exclude" },
    };
    expect(await countPlan(campaign)).toMatchObject({ filter: { links: "folder", value: "camp" } });
    expect(await rolledDays(campaign)).toContain(day);
    await pool.query(`delete from analytics.click_event where workspace_id = $1`, [w.workspace.id]);
    expect(await ask()).toEqual(raw);
  });
});

describe("errors", () => {
  it("bad parameters are 400 validation with messages", async () => {
    for (const q of [
      "groupBy=bogus",
      "limit=0",
      "limit=101",
      "limit=ten",
      "interval=2d",
      "timezone=Mars/Olympus",
      "start=yesterday",
      "start=2026-11-02&end=2026-11-01",
      "interval=7d&start=2026-11-01",
      "end=2026-11-01",
      "country=USA",
      "device=phone",
      "bots=some",
      "foo=1",
      "domain=localhost:3000",
    ]) {
      const r = await api.get(`/api/v1/analytics?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error, q).toBe("validation");
      expect(r.body.messages.length, q).toBeGreaterThan(0);
    }
    expect((await api.get(`/api/v1/analytics/export?groupBy=count`)).status).toBe(400);
  });

  it("a link of another workspace is 404; a code on several domains is 409 ambiguous_code unless domain picks one", async () => {
    const other = await makeWorkspace("team");
    await links(other.workspace.id, { theirs: "" });
    expect((await api.get(`/api/v1/analytics?link=theirs`)).body).toEqual({ error: "not_found" });
    expect((await api.get(`/api/v1/analytics/export?link=theirs`)).status).toBe(404);
    const brand = await makeDomain(a.workspace.id, "go.analytics.test");
    await db().link.create({ data: { workspaceId: a.workspace.id, code: "dup", url: "https://dest.example/1" } });
    await db().link.create({
      data: { workspaceId: a.workspace.id, code: "dup", url: "https://dest.example/2", domainId: brand.id, domainKey: brand.id },
    });
    const r = await api.get(`/api/v1/analytics?link=dup`);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: "ambiguous_code", code: "dup", domains: [null, "go.analytics.test"] });
    expect(await get("link=dup&domain=go.analytics.test")).toMatchObject({ clicks: 0 });
  });

  it("no key is 401", async () => {
    expect((await client(env.app, null).get("/api/v1/analytics")).status).toBe(401);
  });
});

describe("retention", () => {
  it("events older than the plan's window are neither answered nor kept after the job runs", async () => {
    const w = await makeWorkspace("short"); // analyticsRetentionDays: 7
    const team = await seeded(); // the team plan keeps 730 days
    const ids = await links(w.workspace.id, { kept: "" });
    const now = Date.now();
    const ev = (ageDays: number, visitor: number): ClickEvent => ({
      ...event(w.workspace.id, { kept: ids.kept }, [
        "2026-01-01T00:00:00Z",
        "kept",
        "US",
        null,
        "desktop",
        "Chrome",
        "Windows",
        null,
        false,
        false,
        visitor,
      ]),
      at: now - ageDays * DAY,
    });
    const ancient = now - 4 * 365 * DAY; // older than any plan keeps: its whole partition goes
    await store.record([ev(2, 1), ev(10, 2), ev(20, 3), { ...ev(0, 4), at: ancient }]);
    const wapi = client(env.app, w.key);
    expect((await wapi.get("/api/v1/analytics?interval=all")).body).toMatchObject({ clicks: 1 });
    const r = (await wapi.get(`/api/v1/analytics?start=${Math.floor((now - 30 * DAY) / 1000)}`)).body;
    expect(r.clicks).toBe(1);
    expect(Date.parse(r.start)).toBeGreaterThanOrEqual(now - 7 * DAY - 60_000); // cut to the window
    const month = (ms: number) => ({ year: new Date(ms).getUTCFullYear(), month: new Date(ms).getUTCMonth() + 1 });
    expect(await listMonthPartitions(pool)).toContainEqual(month(ancient));

    // rollups of those events: a day inside the window, a day outside it
    const rolled = async () => {
      const days = await pool.query(`select distinct day from analytics.click_day where workspace_id = $1`, [w.workspace.id]);
      const linkDays = await pool.query(`select distinct day from analytics.click_day_link where workspace_id = $1`, [w.workspace.id]);
      const destDays = await pool.query(`select distinct day from analytics.click_day_destination where workspace_id = $1`, [
        w.workspace.id,
      ]);
      // each destination's URL, kept while a day names it
      const names = await pool.query(
        `select (last_day - date '1970-01-01')::int as d from analytics.click_destination where workspace_id = $1`,
        [w.workspace.id],
      );
      return { days: days.rows.length, linkDays: linkDays.rows.length, destDays: destDays.rows.length, names: names.rows.map((r) => r.d) };
    };
    await buildRollupDay(pool, Math.floor((now - 2 * DAY) / DAY));
    await buildRollupDay(pool, Math.floor((now - 10 * DAY) / DAY));
    expect(await rolled()).toEqual({ days: 2, linkDays: 2, destDays: 2, names: [Math.floor((now - 2 * DAY) / DAY)] });
    // a URL named only by days past the window goes with them
    await pool.query(
      `insert into analytics.click_destination (workspace_id, dest, url, last_day) values ($1, md5('gone')::uuid, 'gone', date '1970-01-01' + $2::int)`,
      [w.workspace.id, Math.floor((now - 10 * DAY) / DAY)],
    );

    const result = await applyRetention(pool);
    expect(await rolled()).toEqual({ days: 1, linkDays: 1, destDays: 1, names: [Math.floor((now - 2 * DAY) / DAY)] });
    expect(result.droppedPartitions.length).toBeGreaterThan(0);
    expect(await listMonthPartitions(pool)).not.toContainEqual(month(ancient));
    const { rows } = await pool.query(`select count(*)::int as n from analytics.click_event where workspace_id = $1`, [w.workspace.id]);
    expect(rows[0].n).toBe(1);
    // another plan's events are kept as long as that plan says
    expect(await team.get(R)).toMatchObject({ clicks: 6 });
    const teamEvents = await pool.query(`select count(*)::int as n from analytics.click_event where workspace_id = $1`, [
      team.workspace.id,
    ]);
    expect(teamEvents.rows[0].n).toBe(EVENTS.length);
  });
});

describe("export", () => {
  it("streams CSV, one row per event, without the visitor key, formulas neutralised", async () => {
    const w = await makeWorkspace("team");
    const ids = await links(w.workspace.id, { ex: "" });
    const base = Date.now() - 3 * DAY;
    const many: ClickEvent[] = Array.from({ length: 4500 }, (_, i) => ({
      ...event(w.workspace.id, ids, [
        "2026-01-01T00:00:00Z",
        "ex",
        "SE",
        i === 1 ? "=SUM(A1:A9)" : "Stockholm",
        "mobile",
        "Safari",
        "iOS",
        "t.co",
        i % 10 === 0,
        false,
        i,
      ]),
      at: base + i * 1000,
    }));
    await store.record(many);
    const r = await client(env.app, w.key).get(`/api/v1/analytics/export?interval=7d`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toContain("text/csv");
    expect(r.headers["content-disposition"]).toMatch(/attachment; filename="clicks-.*\.csv"/);
    const rows: Record<string, string>[] = parse(r.text, { columns: true });
    expect(rows).toHaveLength(4050); // bots left out by default
    expect(Object.keys(rows[0])).toEqual([
      "time",
      "link",
      "domain",
      "target",
      "country",
      "city",
      "referrer_host",
      "referrer_url",
      "device",
      "browser",
      "os",
      "bot",
      "qr",
      "destination",
      "language",
    ]);
    expect(r.text).not.toContain("visitor");
    expect(rows[0]).toMatchObject({
      link: "ex",
      country: "SE",
      city: "'=SUM(A1:A9)",
      referrer_host: "t.co",
      device: "mobile",
      bot: "false",
    }); // event 0 is a bot
    expect(rows.every((x, i) => i === 0 || x.time >= rows[i - 1].time)).toBe(true);
    const all: unknown[] = parse((await client(env.app, w.key).get(`/api/v1/analytics/export?interval=7d&bots=include`)).text, {
      columns: true,
    });
    expect(all).toHaveLength(4500);
    const filtered: unknown[] = parse((await client(env.app, w.key).get(`/api/v1/analytics/export?interval=7d&bots=only&link=ex`)).text, {
      columns: true,
    });
    expect(filtered).toHaveLength(450);
  });
});
