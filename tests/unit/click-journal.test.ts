import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ClickHit } from "../../lib/analytics/ingest/enrich.ts";
import { ClickJournal, journalFolder } from "../../lib/clicks/journal.ts";
import { ClickPipeline, type ClickBatch, type ClickWriter } from "../../lib/clicks/pipeline.ts";
import { metrics } from "../../lib/metrics/index.ts";

// The click journal with the pipeline (a writer in memory that can refuse; the journal on a real
// disk): refused batches wait on disk in order, are replayed oldest first once the writer takes them
// again, survive a reopen (a restart), and a full journal gives up with a log line and a metric.

const salt = Buffer.alloc(32, 3);
const folders: string[] = [];

function tempFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-journal-"));
  folders.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const hit = (i: number, linkId = 1): ClickHit => ({
  at: Date.UTC(2026, 10, 27, 12) + i,
  workspaceId: 1,
  linkId,
  domain: "s.test",
  target: "destination",
  address: `203.0.113.${i & 255}`,
  userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0",
  referrer: undefined,
  countryHeader: undefined,
  bot: false,
  qr: false,
});

/** A writer that keeps what it was given, or throws `refusal` while it is set. */
function memoryWriter() {
  const batches: ClickBatch[] = [];
  const writer = {
    refusal: null as Error | null,
    saltDown: false,
    batches,
    saltFor: async () => {
      if (writer.saltDown) throw new Error("connection refused");
      return salt;
    },
    write: async (b: ClickBatch) => {
      if (writer.refusal) throw writer.refusal;
      batches.push(b);
    },
  };
  return writer satisfies ClickWriter;
}

const givenUp = async (reason: string) => (await metrics().clicks.givenUp.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;

describe("the click journal", () => {
  it("keeps refused batches on disk, writes later ones behind them, and replays all in order once the database takes them", async () => {
    const dir = tempFolder();
    const w = memoryWriter();
    const logs: string[] = [];
    const p = new ClickPipeline(w, { geo: () => null, log: (l) => logs.push(l), journal: new ClickJournal(dir, 1 << 20) });
    w.refusal = new Error("connection refused");
    w.saltDown = true;
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 4; i++) p.add(hit(batch * 10 + i, 7), true);
      await p.flush();
    }
    expect(p.journaled.batches).toBe(3);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".json"))).toHaveLength(3);
    expect([p.backlog, p.uncountedClicks]).toEqual([0, 0]);
    expect(logs.filter((l) => l.includes("the database refused a batch"))).toHaveLength(1);
    expect(logs.some((l) => l.includes("using one of this process"))).toBe(true);
    // no address is written to disk: the visitor key is an HMAC
    expect(fs.readdirSync(dir).some((f) => fs.readFileSync(path.join(dir, f), "utf8").includes("203.0.113"))).toBe(false);

    w.refusal = null;
    w.saltDown = false;
    p.add(hit(99, 7), true);
    await p.flush();
    expect(w.batches.map((b) => b.events.map((e) => e.at - Date.UTC(2026, 10, 27, 12)))).toEqual([
      [0, 1, 2, 3],
      [10, 11, 12, 13],
      [20, 21, 22, 23],
      [99],
    ]);
    expect(w.batches.map((b) => [...b.totals])).toEqual([[[7, 4]], [[7, 4]], [[7, 4]], [[7, 1]]]);
    expect(new Set(w.batches.map((b) => b.id)).size).toBe(4);
    expect(p.journaled).toEqual({ batches: 0, bytes: 0 });
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(logs.at(-1)).toMatch(/replayed 4 from the journal/);
  });

  it("a reopened journal (a restart) replays the batches a previous run left, with their ids, and deletes unfinished writes", async () => {
    const dir = tempFolder();
    const first = memoryWriter();
    first.refusal = new Error("connection refused");
    const before = new ClickPipeline(first, { geo: () => null, log: () => {}, journal: new ClickJournal(dir, 1 << 20) });
    for (let i = 0; i < 5; i++) before.add(hit(i, 3), true);
    await before.flushForExit();
    fs.writeFileSync(path.join(dir, "000000000009-00000000-0000-0000-0000-000000000000.json.tmp"), "{ half a bat");

    const reopened = new ClickJournal(dir, 1 << 20);
    expect(reopened.batches).toBe(1);
    const journaledId = (await reopened.oldest())!.id;
    const second = memoryWriter();
    const after = new ClickPipeline(second, { geo: () => null, log: () => {}, journal: reopened });
    await after.flush();
    expect(second.batches).toHaveLength(1);
    expect(second.batches[0].id).toBe(journaledId);
    expect([...second.batches[0].totals]).toEqual([[3, 5]]);
    expect(second.batches[0].events).toHaveLength(5);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("when full, a batch is given up with a log line naming its clicks and a metric; what it holds is still replayed", async () => {
    const dir = tempFolder();
    const w = memoryWriter();
    const logs: string[] = [];
    const p = new ClickPipeline(w, { geo: () => null, log: (l) => logs.push(l), journal: new ClickJournal(dir, 3000) });
    const before = await givenUp("journal_full");
    w.refusal = new Error("connection refused");
    for (let i = 0; i < 4; i++) p.add(hit(i, 2), true);
    await p.flush(); // about 1.5 KB: fits
    for (let i = 0; i < 8; i++) p.add(hit(10 + i, 2), true);
    await p.flush(); // would pass 3000 bytes
    expect(p.journaled.batches).toBe(1);
    expect(logs.at(-1)).toMatch(
      /the click journal is full \(\d+ of 3000 bytes, CLICK_JOURNAL_MAX_MB\): gave up on 8 click events and 8 clicks/,
    );
    expect(await givenUp("journal_full")).toBe(before + 8);
    w.refusal = null;
    await p.flush();
    expect(w.batches.map((b) => b.events.length)).toEqual([4]);
  });

  it("a journaled batch the database refuses for its content is set aside, so later batches are not held behind it", async () => {
    const dir = tempFolder();
    const w = memoryWriter();
    const logs: string[] = [];
    const p = new ClickPipeline(w, { geo: () => null, log: (l) => logs.push(l), journal: new ClickJournal(dir, 1 << 20) });
    w.refusal = new Error("connection refused");
    p.add(hit(1, 4), true);
    await p.flush();
    w.refusal = Object.assign(new Error("value out of range"), { code: "22003" });
    p.add(hit(2, 4), true);
    await p.flush(); // replays the first: refused for its content, set aside; then the second, likewise
    expect(logs.filter((l) => l.includes("set aside as"))).toHaveLength(2);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".refused"))).toHaveLength(2);
    w.refusal = null;
    p.add(hit(3, 4), true);
    await p.flush();
    expect(w.batches.map((b) => [...b.totals])).toEqual([[[4, 1]]]);
    expect(p.journaled.batches).toBe(0);
  });

  it("has one folder per database under the data folder", () => {
    expect(journalFolder("/data", "postgres://u:p@db:5432/linkhop?sslmode=require")).toBe(path.join("/data", "clicks-journal", "linkhop"));
    expect(journalFolder(".data", "postgres://127.0.0.1:5432/")).toBe(path.join(".data", "clicks-journal", "postgres"));
  });
});
