import { describe, expect, it } from "vitest";
import { eventsFrom } from "../../lib/analytics/store/events-read.ts";
import type { ClickQuery } from "../../lib/analytics/model.ts";

// The raw parts of a rollup plan read by one statement (lib/analytics/store/events-read.ts
// eventsFrom): each interval is a branch with its own range condition, never one `or` of the
// ranges, which PostgreSQL answered by walking a filter's links over the whole span between them.

const day = (d: number, h = 0) => new Date(Date.UTC(2026, 9, d, h));
const query: ClickQuery = {
  workspaceId: 7,
  start: day(1, 6),
  end: day(11, 6),
  filters: { bots: "exclude", tags: ["featured"] },
} as ClickQuery;

describe("eventsFrom", () => {
  it("reads one range as the table with its condition", () => {
    const { sql, params } = eventsFrom(query);
    expect(sql).toMatch(/^analytics\.click_event where workspace_id = \$1 and at >= \$2 and at < \$3 /);
    expect(params.values.slice(0, 3)).toEqual([7, day(1, 6), day(11, 6)]);
  });

  it("reads several intervals as a union of branches, each with its own range and the filters, and no or between ranges", () => {
    const intervals = [
      { start: day(1, 6), end: day(2) },
      { start: day(11), end: day(11, 6) },
    ];
    const { sql, params } = eventsFrom(query, intervals);
    const branches = sql.replace(/^\(|\) as click_event$/g, "").split(" union all ");
    expect(branches).toHaveLength(2);
    for (const b of branches) {
      expect(b).toMatch(/^select \* from analytics\.click_event where workspace_id = \$\d+ and at >= \$\d+ and at < \$\d+ and /);
      expect(b).toContain('"LinkTag"');
    }
    expect(sql).not.toMatch(/at < \$\d+ or at >=/);
    const ranges = params.values.filter((v) => v instanceof Date);
    expect(ranges).toEqual([day(1, 6), day(2), day(11), day(11, 6)]);
  });
});
