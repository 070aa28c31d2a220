import { afterEach, describe, expect, it } from "vitest";
import { setClock } from "../../lib/clock.ts";
import { ServiceError } from "../../lib/errors.ts";
import type { Bucket, ClickStore, StoreQuery } from "../../lib/analytics/model.ts";
import { analyticsReport } from "../../lib/analytics/reports/report.ts";
import {
  analytics,
  isoInZone,
  resolveRange,
  seriesGranularity,
  zonedIso,
  type AnalyticsWorkspace,
} from "../../lib/analytics/reports/service.ts";

// The bounds that keep one analytics request from taking the process: the end of a range, the
// number of buckets, one time formatter per answer (exports: analytics-export-bounds.test.ts).

const DAY = 86_400_000;
const HOUR = 3_600_000;
const now = Date.UTC(2026, 10, 23, 12);
const workspace = { id: 1, slug: "w", plan: "free" } as AnalyticsWorkspace; // built-in free plan: 30 days

afterEach(() => {
  setClock(null);
});

/** A store that answers every bucket of the range asked (as PostgreSQL does) and remembers the queries. */
function seriesStore() {
  const asked: StoreQuery[] = [];
  const store = {
    async query(q: StoreQuery) {
      asked.push(q);
      if (q.kind === "count") return { clicks: 0, visitors: 0 };
      if (q.kind === "top") return [];
      const step = q.unit === "hour" ? HOUR : DAY;
      const out: Bucket[] = [];
      for (let t = Math.floor(q.query.start.getTime() / step) * step; t < q.query.end.getTime(); t += step)
        out.push({ start: new Date(t), clicks: 0, visitors: 0 });
      return out;
    },
  } as unknown as ClickStore;
  return { store, asked };
}

describe("ranges", () => {
  it("an end later than a day from now is cut to it, as a start before the retention is cut to that", () => {
    expect(resolveRange({ start: 0, end: 99999999999_000 }, 30, now)).toEqual({ start: now - 30 * DAY, end: now + DAY });
    expect(resolveRange({ start: now - DAY, end: Date.UTC(2500, 0, 1) }, 365, now)).toEqual({ start: now - DAY, end: now + DAY });
    // up to a day ahead is kept (the rest of today in any time zone)
    expect(resolveRange({ start: now - DAY, end: now + 5 * HOUR }, 30, now)).toEqual({ start: now - DAY, end: now + 5 * HOUR });
    // a range wholly in the future is empty, at the latest end
    expect(resolveRange({ start: Date.UTC(2200, 0, 1), end: Date.UTC(2300, 0, 1) }, 30, now)).toEqual({ start: now + DAY, end: now + DAY });
  });

  it("an hourly series covers at most 31 days; by default hours up to 48 hours, then days", () => {
    const range = (ms: number) => ({ start: new Date(now - ms), end: new Date(now) });
    expect(seriesGranularity(range(48 * HOUR))).toBe("hour");
    expect(seriesGranularity(range(48 * HOUR + 1))).toBe("day");
    expect(seriesGranularity(range(31 * DAY), "hour")).toBe("hour");
    expect(seriesGranularity(range(HOUR), "day")).toBe("day");
    let error: unknown;
    try {
      seriesGranularity(range(31 * DAY + 1), "hour");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("validation");
    expect((error as ServiceError).issues).toEqual([{ path: "granularity", message: expect.stringContaining("at most 31 days") }]);
  });

  it("analytics takes now from the clock and never asks the store for more than the cut range", async () => {
    setClock(() => now);
    const { store, asked } = seriesStore();
    const r = await analytics(workspace, { groupBy: "timeseries", start: 0, end: 99999999999_000 }, undefined, store);
    expect(r.start).toBe(new Date(now - 30 * DAY).toISOString());
    expect(r.end).toBe(new Date(now + DAY).toISOString());
    expect(asked[0].query.end.getTime()).toBe(now + DAY);
    expect(r.data!.length).toBeLessThanOrEqual(32);
  });
});

describe("bucket times", () => {
  it("one formatter per answer, not per bucket, with the same text as before", async () => {
    for (const [at, zone] of [
      ["2026-11-02T05:00:00Z", "America/New_York"],
      ["2026-07-01T04:00:00Z", "America/New_York"],
      ["2026-07-01T00:00:00Z", "UTC"],
      ["2026-07-01T00:00:00Z", "Asia/Kolkata"],
    ])
      expect(zonedIso(zone)(new Date(at))).toBe(isoInZone(new Date(at), zone));
    const original = Intl.DateTimeFormat;
    let made = 0;
    Intl.DateTimeFormat = new Proxy(original, {
      construct(target, args) {
        made++;
        return Reflect.construct(target, args);
      },
    });
    try {
      const { store } = seriesStore();
      const r = await analytics(
        { ...workspace, plan: "business" } as AnalyticsWorkspace,
        { groupBy: "timeseries", start: now - 700 * DAY, end: now, timezone: "Europe/Berlin" },
        now,
        store,
      );
      expect(r.data!.length).toBeGreaterThanOrEqual(700);
      expect(made).toBeLessThanOrEqual(1);
    } finally {
      Intl.DateTimeFormat = original;
    }
  });
});

describe("the Analytics page", () => {
  it("says when the URL's range was cut, and shows the cut range", async () => {
    const { store } = seriesStore();
    const cut = await analyticsReport(workspace, { start: "0", end: "2200-01-01" }, { panels: [], now, store });
    expect(cut.problem).toBeNull();
    expect(cut.series.end).toBe(new Date(now + DAY).toISOString());
    expect(cut.rangeNotice).toMatch(/ends at most a day from now/);
  });
});
