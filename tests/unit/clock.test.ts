import { afterEach, describe, expect, it } from "vitest";
import { monthOf, now, setClock } from "../../lib/clock.ts";

afterEach(() => {
  setClock(null);
  delete process.env.LINKHOP_CLOCK_START;
});

describe("the app's calendar clock", () => {
  it("is real time by default", () => {
    const before = Date.now();
    const t = now().getTime();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });

  it("setClock replaces it in-process, and monthOf() follows it", () => {
    setClock(() => new Date("2027-12-31T23:59:59.999Z"));
    expect(monthOf()).toBe("2027-12");
    setClock(() => Date.parse("2028-01-01T00:00:00.000Z"));
    expect(monthOf()).toBe("2028-01");
    setClock(null);
    expect(monthOf()).toBe(new Date().toISOString().slice(0, 7));
  });

  it("LINKHOP_CLOCK_START starts it at that instant and lets it run at real speed", async () => {
    process.env.LINKHOP_CLOCK_START = "2030-06-15T12:00:00Z";
    const first = now().getTime();
    expect(Math.abs(first - Date.parse("2030-06-15T12:00:00Z"))).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 20));
    expect(now().getTime()).toBeGreaterThan(first);
    expect(monthOf()).toBe("2030-06");
  });

  it("a LINKHOP_CLOCK_START that is not an instant is refused with a message naming it", () => {
    process.env.LINKHOP_CLOCK_START = "next tuesday";
    expect(() => now()).toThrow(/LINKHOP_CLOCK_START/);
  });
});
