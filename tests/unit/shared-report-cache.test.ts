import { afterAll, afterEach, describe, expect, it } from "vitest";
import { setClock } from "../../lib/clock.ts";
import { KEEP_MS, SharedReportCache } from "../../lib/analytics/shared-report-cache.ts";

// The share page's report cache: one report per view a minute, visits during a compute share it,
// a failure is not kept, and the number of views kept is bounded.

let t = 1_000_000;
setClock(() => t);
afterAll(() => setClock(null));
afterEach(() => {
  t = 1_000_000;
});

const counting = () => {
  let calls = 0;
  return { compute: async () => ++calls, calls: () => calls };
};

describe("SharedReportCache", () => {
  it("computes a view's report once while it is younger than a minute, then again", async () => {
    const cache = new SharedReportCache<number>();
    const c = counting();
    expect(await cache.report("v1", c.compute)).toBe(1);
    t += KEEP_MS - 1;
    expect(await cache.report("v1", c.compute)).toBe(1);
    t += 1;
    expect(await cache.report("v1", c.compute)).toBe(2);
    expect(c.calls()).toBe(2);
  });

  it("visits arriving while the report is computed share that one computation", async () => {
    const cache = new SharedReportCache<number>();
    const c = counting();
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.report("v1", c.compute)));
    expect(all).toEqual(Array(20).fill(1));
    expect(c.calls()).toBe(1);
  });

  it("a failed report is not kept: the next visit computes again", async () => {
    const cache = new SharedReportCache<number>();
    await expect(cache.report("v1", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(cache.size).toBe(0);
    expect(await cache.report("v1", async () => 7)).toBe(7);
  });

  it("keeps at most its bound of views, dropping the least recently used", async () => {
    const cache = new SharedReportCache<string>(KEEP_MS, 3);
    for (const k of ["a", "b", "c"]) await cache.report(k, async () => k);
    await cache.report("a", async () => "a again"); // a used last: b is now the oldest
    await cache.report("d", async () => "d");
    expect(cache.size).toBe(3);
    expect(await cache.report("a", async () => "recomputed")).toBe("a");
    expect(await cache.report("b", async () => "recomputed")).toBe("recomputed");
  });
});
