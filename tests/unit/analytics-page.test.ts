import { describe, expect, it } from "vitest";
import { withParams } from "../../lib/analytics/reports/page-url.ts";
import { pageParams } from "../../lib/analytics/reports/report.ts";
import { parseInstant, isTimeZone } from "../../lib/analytics/reports/schemas.ts";
import { isoInZone, resolveRange } from "../../lib/analytics/reports/service.ts";

const DAY = 86_400_000;

describe("page URLs", () => {
  it("keeps the known parameters, single-valued, and changes or removes some in a stable order", () => {
    expect(pageParams({ country: "DE", interval: ["7d", "30d"], foo: "x", device: "" })).toEqual({ country: "DE", interval: "7d" });
    expect(withParams("/w/a/analytics", { interval: "7d", country: "DE" }, { device: "mobile" })).toBe(
      "/w/a/analytics?country=DE&device=mobile&interval=7d",
    );
    expect(withParams("/w/a/analytics", { country: "DE" }, { country: null })).toBe("/w/a/analytics");
    expect(withParams("/x", {}, { referrer: "(direct)" })).toBe("/x?referrer=%28direct%29");
  });
});

describe("ranges and times", () => {
  const now = Date.UTC(2026, 10, 23, 12);
  it("intervals end now; all and anything older is cut to the retention", () => {
    expect(resolveRange({}, 365, now)).toEqual({ start: now - 30 * DAY, end: now });
    expect(resolveRange({ interval: "24h" }, 365, now)).toEqual({ start: now - DAY, end: now });
    expect(resolveRange({ interval: "1y" }, 30, now)).toEqual({ start: now - 30 * DAY, end: now });
    expect(resolveRange({ interval: "all" }, 730, now)).toEqual({ start: now - 730 * DAY, end: now });
    expect(resolveRange({ start: now - 100 * DAY, end: now - 50 * DAY }, 60, now)).toEqual({ start: now - 60 * DAY, end: now - 50 * DAY });
    expect(resolveRange({ start: now - 100 * DAY, end: now - 90 * DAY }, 60, now)).toEqual({ start: now - 60 * DAY, end: now - 60 * DAY });
  });
  it("contradictions are validation errors", () => {
    expect(() => resolveRange({ interval: "7d", start: now - DAY }, 30, now)).toThrow(/interval/);
    expect(() => resolveRange({ end: now }, 30, now)).toThrow(/required/);
    expect(() => resolveRange({ start: now, end: now - 1 }, 30, now)).toThrow(/after start/);
  });
  it("reads unix seconds and ISO 8601; a time without an offset is UTC", () => {
    expect(parseInstant("1767225600")).toBe(Date.UTC(2026, 0, 1));
    expect(parseInstant("2026-01-01")).toBe(Date.UTC(2026, 0, 1));
    expect(parseInstant("2026-01-01T05:30")).toBe(Date.UTC(2026, 0, 1, 5, 30));
    expect(parseInstant("2026-01-01T05:30:00-05:00")).toBe(Date.UTC(2026, 0, 1, 10, 30));
    expect(parseInstant("yesterday")).toBeNull();
    expect(parseInstant("2026-13-45")).toBeNull();
  });
  it("time zones and local times with their offset", () => {
    expect(isTimeZone("America/New_York")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("'; drop table x")).toBe(false);
    expect(isoInZone(new Date("2026-11-02T05:00:00Z"), "America/New_York")).toBe("2026-11-02T00:00:00-05:00");
    expect(isoInZone(new Date("2026-07-01T04:00:00Z"), "America/New_York")).toBe("2026-07-01T00:00:00-04:00");
    expect(isoInZone(new Date("2026-07-01T00:00:00Z"), "UTC")).toBe("2026-07-01T00:00:00+00:00");
    expect(isoInZone(new Date("2026-07-01T00:00:00Z"), "Asia/Kolkata")).toBe("2026-07-01T05:30:00+05:30");
  });
});
