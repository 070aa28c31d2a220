import { describe, expect, it } from "vitest";
import { exportClicks, runningExports } from "../../lib/analytics/reports/export.ts";
import type { ClickQuery, ClickStore, ExportRow } from "../../lib/analytics/model.ts";
import type { AnalyticsWorkspace } from "../../lib/analytics/reports/service.ts";
import { eventually } from "../support/eventually.ts";

// A CSV export holds a database cursor while it streams: it is ended at a deadline however far the
// client read, and only a few run at once, so a client that stops reading cannot keep connections.

const now = Date.UTC(2026, 10, 23, 12);
const workspace = { id: 1, slug: "w", plan: "free" } as AnalyticsWorkspace;

/** A store whose export never ends (a page whenever asked) and says when its cursor was closed. */
function endlessExportStore() {
  const state = { pages: 0, closed: false };
  const store = {
    async *events(_q: ClickQuery): AsyncGenerator<ExportRow[]> {
      try {
        for (;;) {
          state.pages++;
          yield []; // empty pages: no link codes to look up (no database here)
        }
      } finally {
        state.closed = true;
      }
    },
  } as unknown as ClickStore;
  return { store, state };
}

describe("exports", () => {
  it("a stream nobody reads to the end is ended at the deadline: its cursor closed, its slot free, the reader told", async () => {
    const { store, state } = endlessExportStore();
    const bounds = { timeoutMs: 100, maxRunning: 1 };
    const csv = await exportClicks(workspace, { interval: "7d" }, now, store, bounds);
    const reader = csv.stream.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^time,link,/);
    await reader.read(); // one page, then the client stops reading
    expect(runningExports()).toBe(1);
    // a second one while it runs: refused as the API's 429 rate_limit
    await expect(exportClicks(workspace, { interval: "7d" }, now, store, bounds)).rejects.toMatchObject({
      code: "rate_limit",
      extra: { limit: 1 },
    });
    await eventually(async () => state.closed, 2_000, "the stream's cursor closed");
    expect(runningExports()).toBe(0);
    // the download breaks off (an error, never a short file that looks whole)
    let failed = false;
    for (;;) {
      try {
        if ((await reader.read()).done) break;
      } catch {
        failed = true;
        break;
      }
    }
    expect(failed).toBe(true);
    // the slot is free again; a cancelled export frees its slot and cursor at once
    const next = await exportClicks(workspace, { interval: "7d" }, now, store, bounds);
    expect(runningExports()).toBe(1);
    await next.stream.cancel();
    expect(runningExports()).toBe(0);
  });
});
