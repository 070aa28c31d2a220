import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, fromUnixSeconds } from "../../components/dates.ts";

describe("the app's one date format", () => {
  const at = new Date("2026-11-25T14:05:09Z");

  it("writes dates as 'Nov 25, 2026' and times as 'Nov 25, 2026, 14:05 UTC'", () => {
    expect(formatDate(at)).toBe("Nov 25, 2026");
    expect(formatDateTime(at)).toBe("Nov 25, 2026, 14:05 UTC");
    expect(formatDateTime(at, { seconds: true })).toBe("Nov 25, 2026, 14:05:09 UTC");
  });

  it("reads Dates, ISO strings and milliseconds alike, and unix seconds through fromUnixSeconds", () => {
    expect(formatDateTime("2026-11-25T14:05:09.000Z")).toBe("Nov 25, 2026, 14:05 UTC");
    expect(formatDateTime(at.getTime())).toBe("Nov 25, 2026, 14:05 UTC");
    expect(formatDate(fromUnixSeconds(Math.floor(at.getTime() / 1000)))).toBe("Nov 25, 2026");
  });

  it("uses UTC whatever the process's time zone (a late-evening time in New York is the next day)", () => {
    expect(formatDate("2026-11-26T03:30:00Z")).toBe("Nov 26, 2026");
    expect(formatDateTime("2026-01-01T00:00:00Z")).toBe("Jan 1, 2026, 00:00 UTC");
  });

  it("writes a dash for a missing or unreadable date", () => {
    expect(formatDate(null)).toBe("—");
    expect(formatDateTime(undefined)).toBe("—");
    expect(formatDate("not a date")).toBe("—");
    expect(fromUnixSeconds(null)).toBeNull();
  });
});
