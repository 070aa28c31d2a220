import { describe, expect, it } from "vitest";
import type { ClickFilters, StoreQuery, TopGroup } from "../../lib/analytics/model.ts";
import { pagePlanner, planQuery, planSource, sharedReads } from "../../lib/analytics/store/plan.ts";
import type { Queryable } from "../../lib/db/queryable.ts";

// store/plan.ts: which table answers a report, for every row of its table.

const DAY = 86_400_000;
const day = (iso: string) => Date.parse(iso) / DAY;
// 2026-10-01 06:00 .. 2026-10-11 06:00: whole days 10-02 .. 10-10
const start = new Date("2026-10-01T06:00:00Z");
const end = new Date("2026-10-11T06:00:00Z");
const ALL_BUILT = new Set(Array.from({ length: 20 }, (_, i) => day("2026-09-25") + i));

type Filters = Omit<ClickFilters, "bots">;
const query = (filters: Filters = {}, range = { start, end }) => ({
  workspaceId: 1,
  ...range,
  filters: { bots: "exclude" as const, ...filters },
});
const count = (filters?: Filters): StoreQuery => ({ kind: "count", query: query(filters) });
const days = (filters?: Filters, timezone = "UTC", unit: "hour" | "day" = "day"): StoreQuery => ({
  kind: "timeseries",
  query: query(filters),
  unit,
  timezone,
});
const top = (group: TopGroup, filters?: Filters): StoreQuery => ({ kind: "top", query: query(filters), group, limit: 10 });

describe("which table answers a report (planSource)", () => {
  const cases: [string, StoreQuery, object][] = [
    ["hour buckets", days({}, "UTC", "hour"), { source: "events" }],
    ["day buckets in another time zone", days({}, "America/New_York"), { source: "events" }],
    ["a city filter", count({ city: "Paris" }), { source: "events" }],
    ["two filters", top("countries", { country: "US", device: "mobile" }), { source: "events" }],
    [
      "top destinations, a device filter",
      top("destinations", { device: "mobile" }),
      { source: "destination-day-rollup", read: "filter-destinations", filter: { dim: "device", value: "mobile" } },
    ],
    [
      "top destinations, a browser filter (kept lower-cased)",
      top("destinations", { browser: "Firefox" }),
      { source: "destination-day-rollup", read: "filter-destinations", filter: { dim: "browser", value: "firefox" } },
    ],
    [
      "top destinations, visits without a referrer",
      top("destinations", { referrer: "(direct)" }),
      { source: "destination-day-rollup", read: "filter-destinations", filter: { dim: "referrer", value: "" } },
    ],
    ["top destinations, a city filter", top("destinations", { city: "Paris" }), { source: "events" }],
    ["top destinations, two filters", top("destinations", { country: "US", qr: true }), { source: "events" }],
    ["top destinations, no filter", top("destinations"), { source: "day-rollup", read: "dim", dim: "destination", filter: null }],
    [
      "top destinations, a folder filter",
      top("destinations", { folder: "promo" }),
      { source: "link-day-rollup", read: "link-set-values", dim: "destination", filter: { links: "folder", value: "promo" } },
    ],
    [
      "top languages, a country filter",
      top("languages", { country: "DE" }),
      { source: "day-rollup", read: "dim", dim: "language", filter: { dim: "country", value: "DE" } },
    ],
    [
      "top languages, a link filter",
      top("languages", { linkId: 3 }),
      { source: "link-day-rollup", read: "link-set-values", dim: "language", filter: { links: "linkId", value: 3 } },
    ],
    ["a dimension and a link filter", count({ country: "US", linkId: 3 }), { source: "events" }],
    [
      "fewer than 2 whole UTC days",
      { kind: "count", query: query({}, { start, end: new Date("2026-10-03T05:00:00Z") }) },
      { source: "events" },
    ],
    ["count, no filter", count(), { source: "day-rollup", read: "dim", dim: "total", filter: null }],
    [
      "count, bots only (the bot mode is no filter)",
      { kind: "count", query: { ...query(), filters: { bots: "only" } } },
      { source: "day-rollup", dim: "total" },
    ],
    ["count, an empty tag list (no filter)", count({ tags: [] }), { source: "day-rollup", dim: "total", filter: null }],
    [
      "UTC days, a country filter",
      days({ country: "us" }),
      { source: "day-rollup", read: "dim", dim: "total", filter: { dim: "country", value: "US" } },
    ],
    [
      "count, a folder filter",
      count({ folder: "promo" }),
      { source: "link-day-rollup", read: "link-set-totals", filter: { links: "folder", value: "promo" } },
    ],
    [
      "UTC days, a link filter",
      days({ linkId: 9 }),
      { source: "link-day-rollup", read: "link-set-totals", filter: { links: "linkId", value: 9 } },
    ],
    ["top countries, no filter", top("countries"), { source: "day-rollup", read: "dim", dim: "country", filter: null }],
    ["top links, no filter", top("links"), { source: "day-rollup", read: "dim", dim: "link", filter: null }],
    [
      "top browsers, a device filter",
      top("browsers", { device: "mobile" }),
      { source: "day-rollup", read: "dim", dim: "browser", filter: { dim: "device", value: "mobile" } },
    ],
    [
      "top cities, an OS filter (kept lower-cased)",
      top("cities", { os: "iOS" }),
      { source: "day-rollup", read: "dim", dim: "city", filter: { dim: "os", value: "ios" } },
    ],
    ["top tags, no filter", top("tags"), { source: "day-rollup", read: "links-now", by: "tags", filter: null }],
    ["top utm_medium, no filter", top("utm_medium"), { source: "day-rollup", read: "links-now", by: "utm_medium" }],
    [
      "top links, a browser filter",
      top("links", { browser: "Firefox" }),
      { source: "link-day-rollup", read: "filter-links", by: "link", filter: { dim: "browser", value: "firefox" } },
    ],
    [
      "top utm_source, visits without a referrer",
      top("utm_source", { referrer: "(direct)" }),
      { source: "link-day-rollup", read: "filter-links", by: "utm_source", filter: { dim: "referrer", value: "" } },
    ],
    [
      "top tags, a QR filter",
      top("tags", { qr: true }),
      { source: "link-day-rollup", read: "filter-links", by: "tags", filter: { dim: "qr", value: "true" } },
    ],
    [
      "top tags, a link filter",
      top("tags", { linkId: 4 }),
      { source: "link-day-rollup", read: "link-set-groups", by: "tags", filter: { links: "linkId", value: 4 } },
    ],
    [
      "top links, a tag filter",
      top("links", { tags: ["blue"] }),
      { source: "link-day-rollup", read: "link-set-groups", by: "link", filter: { links: "tags", value: ["blue"] } },
    ],
    [
      "top cities, a folder filter",
      top("cities", { folder: "promo" }),
      { source: "link-day-rollup", read: "link-set-values", dim: "city", filter: { links: "folder", value: "promo" } },
    ],
    ["top qr, a link filter", top("qr", { linkId: 4 }), { source: "link-day-rollup", read: "link-set-values", dim: "qr" }],
  ];
  for (const [name, shape, expected] of cases)
    it(`${name}: ${Object.values(expected).slice(0, 2).join(", ")}`, () => {
      const plan = planSource(shape, ALL_BUILT);
      expect(plan).toMatchObject(expected);
      if (plan.source === "events") expect(Object.keys(plan)).toEqual(["source"]);
    });

  it("no built day in the range: the events", () => {
    expect(planSource(count(), new Set([day("2026-09-01"), day("2026-10-11")]))).toEqual({ source: "events" });
  });

  it("top destinations under a filter read the built days from their rollup and the events around them", () => {
    const built = new Set([day("2026-10-02"), day("2026-10-03"), day("2026-10-10"), day("2026-10-11")]);
    expect(planSource(top("destinations", { country: "us" }), built)).toEqual({
      source: "destination-day-rollup",
      read: "filter-destinations",
      filter: { dim: "country", value: "US" },
      days: [day("2026-10-02"), day("2026-10-03"), day("2026-10-10")],
      raw: [
        { start, end: new Date("2026-10-02T00:00:00Z") },
        { start: new Date("2026-10-04T00:00:00Z"), end: new Date("2026-10-10T00:00:00Z") },
        { start: new Date("2026-10-11T00:00:00Z"), end },
      ],
    });
  });

  it("a rollup plan reads the built days of the range and the events around them", () => {
    const built = new Set([day("2026-09-30"), day("2026-10-03"), day("2026-10-04"), day("2026-10-07"), day("2026-10-11")]);
    const plan = planSource(top("devices"), built);
    expect(plan).toMatchObject({
      source: "day-rollup",
      days: [day("2026-10-03"), day("2026-10-04"), day("2026-10-07")],
      raw: [
        { start, end: new Date("2026-10-03T00:00:00Z") },
        { start: new Date("2026-10-05T00:00:00Z"), end: new Date("2026-10-07T00:00:00Z") },
        { start: new Date("2026-10-08T00:00:00Z"), end },
      ],
    });
  });
});

describe("planQuery", () => {
  it("asks the store for the built days of the report's whole UTC days, and only when a rollup could answer", async () => {
    const asked: unknown[][] = [];
    const db = {
      query: async (q: { values: unknown[] }) => {
        asked.push(q.values);
        return { rows: [{ d: day("2026-10-05") }] };
      },
    } as unknown as Queryable;
    expect(await planQuery(db, days({}, "UTC", "hour"))).toEqual({ source: "events" });
    expect(await planQuery(db, count({ city: "Paris" }))).toEqual({ source: "events" });
    expect(asked).toEqual([]);
    expect(await planQuery(db, count())).toMatchObject({ source: "day-rollup", days: [day("2026-10-05")] });
    expect(asked).toEqual([[day("2026-10-02"), day("2026-10-11")]]);
  });
});

describe("pagePlanner", () => {
  it("reads the built days of the page's span once, plans each report as planQuery does, and reads its own for a report outside the span", async () => {
    const asked: unknown[][] = [];
    const db = {
      query: async (q: { values: [number, number] }) => {
        asked.push(q.values);
        const [from, to] = q.values;
        return { rows: [...ALL_BUILT].filter((d) => d >= from && d < to).map((d) => ({ d })) };
      },
    } as unknown as Queryable;
    // the page: its range and the period of the same length before it
    const plan = pagePlanner(db, { start: new Date(start.getTime() - (end.getTime() - start.getTime())), end });
    const reports = [count(), days(), top("countries"), top("tags", { country: "US" }), days({}, "UTC", "hour")];
    const plans = await Promise.all(reports.map((r) => plan(r)));
    expect(asked).toEqual([[day("2026-09-22"), day("2026-10-11")]]);
    for (const [i, r] of reports.entries()) expect(plans[i]).toEqual(planSource(r, ALL_BUILT));
    const later: StoreQuery = { kind: "count", query: query({}, { start, end: new Date("2026-10-20T00:00:00Z") }) };
    expect(await plan(later)).toEqual(planSource(later, ALL_BUILT));
    expect(asked).toHaveLength(2);
  });
});

describe("which reads of a page share a statement (sharedReads)", () => {
  const keys = (q: StoreQuery) => sharedReads(q, planSource(q, ALL_BUILT));
  it("a count and a series of one query share their rollup read and their raw read", () => {
    expect(keys(count())).toEqual(keys(days()));
    expect(keys(count()).rolled).not.toBeNull();
    expect(keys(count()).raw).not.toBeNull();
  });
  it("panels of one query share one rollup read (summed, apart from the totals') and one raw read; the link groups theirs", () => {
    const dims = (
      ["countries", "cities", "referrers", "devices", "browsers", "os", "qr", "links", "destinations", "languages"] as const
    ).map((g) => keys(top(g)));
    for (const k of dims) expect(k).toEqual(dims[0]);
    expect(dims[0].rolled).not.toEqual(keys(count()).rolled);
    expect(dims[0].raw).not.toEqual(keys(count()).raw);
    // tags and UTM values: what the links are now, joined to the per-link figures
    const linkGroups = (["tags", "utm_source", "utm_medium", "utm_campaign"] as const).map((g) => keys(top(g)));
    for (const k of linkGroups) expect(k).toEqual(linkGroups[0]);
    expect(linkGroups[0].rolled).not.toBeNull();
    expect(linkGroups[0].rolled).not.toEqual(dims[0].rolled);
    expect(linkGroups[0].raw).not.toEqual(dims[0].raw);
  });
  it("another filter, bot mode or range is another statement; events plans and per-link rollups are read alone", () => {
    expect(keys(top("countries", { device: "mobile" })).rolled).not.toEqual(keys(top("countries")).rolled);
    const bots: StoreQuery = { kind: "count", query: { ...query(), filters: { bots: "include" } } };
    expect(keys(bots)).not.toEqual(keys(count()));
    expect(keys(days({}, "UTC", "hour"))).toEqual({ rolled: null, raw: null });
    expect(keys(count({ folder: "mkt" })).rolled).toBeNull();
    expect(keys(top("devices", { folder: "mkt" }))).toEqual({ rolled: null, raw: expect.any(String) });
    // whole days only: no raw interval, nothing raw to share
    const whole: StoreQuery = {
      kind: "count",
      query: query({}, { start: new Date("2026-10-02T00:00:00Z"), end: new Date("2026-10-05T00:00:00Z") }),
    };
    expect(keys(whole).raw).toBeNull();
  });
});
