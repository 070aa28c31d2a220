import { describe, expect, it } from "vitest";
import { enrichHit, type ClickHit } from "../../lib/analytics/ingest/enrich.ts";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { ClickPipeline, type ClickBatch, type ClickWriter } from "../../lib/clicks/pipeline.ts";

const FIREFOX = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const salt = Buffer.alloc(32, 7);

const hit = (i: number, linkId = 1 + (i % 3), bot = false): ClickHit => ({
  at: Date.UTC(2026, 10, 23, 12) + i,
  workspaceId: 1,
  linkId,
  domain: "s.test",
  target: "destination",
  address: `203.0.${i >> 8}.${i & 255}`,
  userAgent: i % 2 ? FIREFOX : SAFARI,
  referrer: undefined,
  countryHeader: undefined,
  bot,
  qr: false,
});

/** A writer that keeps what it was given, or refuses while `down`. */
function memoryWriter() {
  const batches: ClickBatch[] = [];
  const writer = {
    down: false,
    batches,
    saltFor: async () => salt,
    write: async (b: ClickBatch) => {
      if (writer.down) throw new Error("connection refused");
      batches.push(b);
    },
  };
  return writer satisfies ClickWriter & { down: boolean };
}

describe("the click pipeline", () => {
  it("one flush writes the counters of uncapped links and every visit's event together", async () => {
    const w = memoryWriter();
    const p = new ClickPipeline(w, { geo: () => null });
    p.add(hit(0, 1), true);
    p.add(hit(1, 1), true);
    p.add(hit(2, 2), false); // a capped link: counted on the request path already
    p.add(hit(3, 3, true), false); // a bot: an event, never a click
    expect(p.uncountedClicks).toBe(2);
    expect(p.backlog).toBe(4);
    await p.flush();
    expect(w.batches).toHaveLength(1);
    expect([...w.batches[0].totals]).toEqual([[1, 2]]);
    expect(w.batches[0].events.map((e) => [e.linkId, e.bot])).toEqual([
      [1, false],
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(p.backlog).toBe(0);
    await p.flush(); // nothing left: nothing written
    expect(w.batches).toHaveLength(1);
  });

  it("a flush larger than one slice stores every hit once, in order, enriched as alone, and lets other work run between slices", async () => {
    const stored: ClickEvent[][] = [];
    let otherWorkRanBeforeStore = false;
    let otherWorkRan = false;
    const writer: ClickWriter = {
      saltFor: async () => salt,
      write: async (b) => {
        otherWorkRanBeforeStore = otherWorkRan;
        stored.push(b.events);
      },
    };
    const p = new ClickPipeline(writer, { geo: () => null });
    const hits = Array.from({ length: 4500 }, (_, i) => hit(i));
    for (const h of hits) p.add(h, true);
    const flushed = p.flush();
    // scheduled after the flush started: runs before the batch is stored only if the flush yields
    setImmediate(() => (otherWorkRan = true));
    await flushed;
    expect(stored).toHaveLength(1);
    expect(stored[0]).toEqual(hits.map((h) => enrichHit(h, null, salt)));
    expect(otherWorkRanBeforeStore).toBe(true);
    expect(p.backlog).toBe(0);
  });

  it("a refused batch is kept whole; after maxAttempts its events are given up with a log line, its counters never", async () => {
    const w = memoryWriter();
    const logs: string[] = [];
    const p = new ClickPipeline(w, { geo: () => null, maxAttempts: 2, log: (l) => logs.push(l) });
    w.down = true;
    for (let i = 0; i < 5; i++) p.add(hit(i, 7), true);
    await p.flush();
    expect(logs.at(-1)).toMatch(/writing 5 click events failed \(1 in a row\), kept/);
    expect([p.backlog, p.uncountedClicks]).toEqual([5, 5]);
    await p.flush();
    expect(logs.at(-1)).toMatch(/gave up on 5 click events after 2 failed writes/);
    expect([p.backlog, p.uncountedClicks]).toEqual([0, 5]);
    w.down = false;
    p.add(hit(9, 7), true);
    await p.flush();
    expect([...w.batches[0].totals]).toEqual([[7, 6]]);
    expect(w.batches[0].events).toHaveLength(1);
  });

  it("beyond maxPending, events are dropped and logged while clicks are still counted", async () => {
    const w = memoryWriter();
    const logs: string[] = [];
    const p = new ClickPipeline(w, { geo: () => null, maxPending: 3, log: (l) => logs.push(l) });
    for (let i = 0; i < 5; i++) p.add(hit(i, 4), true);
    await p.flush();
    expect(logs).toContain("[analytics] dropped 2 click events: more than 3 were waiting for the database");
    expect(w.batches[0].events).toHaveLength(3);
    expect([...w.batches[0].totals]).toEqual([[4, 5]]);
  });

  it("at exit, what the database does not take is named in the log", async () => {
    const w = memoryWriter();
    const logs: string[] = [];
    const p = new ClickPipeline(w, { geo: () => null, log: (l) => logs.push(l) });
    w.down = true;
    for (let i = 0; i < 4; i++) p.add(hit(i, 5), i < 3);
    await p.flushForExit(2, 1);
    expect(logs.at(-1)).toMatch(/gave up on 4 click events at shutdown \(and 3 clicks on link counters\)/);
    expect([p.backlog, p.uncountedClicks]).toEqual([0, 0]);
  });
});
