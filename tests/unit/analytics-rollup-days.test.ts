import { describe, expect, it } from "vitest";
import { dayRuns } from "../../lib/analytics/store/link-day-rollup-read.ts";

describe("dayRuns", () => {
  it("turns built days, in any order, into runs of consecutive days [first, end)", () => {
    expect(dayRuns([])).toEqual([]);
    expect(dayRuns([5])).toEqual([[5, 6]]);
    expect(dayRuns([7, 5, 6, 9, 10, 20])).toEqual([
      [5, 8],
      [9, 11],
      [20, 21],
    ]);
  });
});
