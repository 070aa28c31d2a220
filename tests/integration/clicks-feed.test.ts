import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { insertClickEvents } from "../../lib/analytics/store/events-insert.ts";
import { ensureMonthPartition, monthOf } from "../../lib/analytics/store/partitions.ts";
import {
  advanceCursor,
  deleteCursor,
  ensureCursor,
  FEED_START,
  feedHead,
  pruneFedClickEvents,
  readClickEventsAfter,
  readCursor,
  type FeedPosition,
} from "../../lib/clicks/feed.ts";
import { storedClick } from "../support/click-hits.ts";
import { createTestDatabase, feedSettled } from "../support/db.ts";

// The click-event feed (lib/analytics/store/feed.ts, entry lib/clicks/feed.ts) against real
// PostgreSQL: commit order, nothing read from a transaction still open nor anything that could
// later appear behind a returned position, cursors that only move forward, pruning bounded by
// every cursor and the keep period. One database for the file; each test uses its own workspace
// id and reads from the head it takes first, so tests do not see each other's rows.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const BASE = Date.UTC(2026, 10, 20, 12);

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  await ensureMonthPartition(pool, monthOf(BASE));
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

function events(workspaceId: number, n: number, at = BASE): ClickEvent[] {
  return Array.from({ length: n }, (_, i) => storedClick({ at: at + i, workspaceId, linkId: 1 + i, visitor: String(1000 + i) }));
}

/** Reads everything after `from` (pages of `page`) and returns the events of `workspaceId`. */
async function readAll(from: FeedPosition, workspaceId: number, page = 1000) {
  const seen: { linkId: number; position: FeedPosition }[] = [];
  let at = from;
  for (;;) {
    const { events: batch, next } = await readClickEventsAfter(pool, at, page);
    for (const e of batch) if (e.workspaceId === workspaceId) seen.push({ linkId: e.linkId, position: e.position });
    if (!batch.length) return { seen, next: at };
    at = next;
  }
}

test("events come in commit order with their positions; a page ends where the next one starts; a re-read repeats it", async () => {
  const head = await feedHead(pool);
  await insertClickEvents(pool, events(1, 5));
  await insertClickEvents(pool, events(1, 3, BASE - 60_000)); // an older click time, committed later
  await feedSettled(pool);
  const first = await readClickEventsAfter(pool, head, 4);
  expect(first.events.map((e) => e.linkId)).toEqual([1, 2, 3, 4]);
  expect(first.next).toEqual(first.events[3].position);
  expect(first.events[0]).toMatchObject({ workspaceId: 1, country: "SE", browser: "Firefox", visitor: "1000", at: BASE });
  const again = await readClickEventsAfter(pool, head, 4);
  expect(again.events.map((e) => e.position)).toEqual(first.events.map((e) => e.position));
  const rest = await readClickEventsAfter(pool, first.next, 100);
  expect(rest.events.map((e) => e.linkId)).toEqual([5, 1, 2, 3]);
  const empty = await readClickEventsAfter(pool, rest.next, 100);
  expect(empty).toEqual({ events: [], next: rest.next });
});

test("a transaction still open is not read, and holds back those committed after it until it ends", async () => {
  const head = await feedHead(pool);
  const open = await pool.connect();
  try {
    await open.query("begin");
    await insertClickEvents(open, events(2, 2)); // links 1, 2: the earlier transaction
    await insertClickEvents(pool, events(2, 3).slice(2)); // link 3: committed first
    expect((await readAll(head, 2)).seen).toEqual([]);
    await open.query("commit");
  } finally {
    open.release();
  }
  await feedSettled(pool);
  const { seen } = await readAll(head, 2);
  expect(seen.map((e) => e.linkId)).toEqual([1, 2, 3]);
});

test("a rolled back transaction leaves nothing in the feed, and the feed goes on after it", async () => {
  const head = await feedHead(pool);
  const client = await pool.connect();
  try {
    await client.query("begin");
    await insertClickEvents(client, events(3, 2));
    await client.query("rollback");
  } finally {
    client.release();
  }
  await insertClickEvents(pool, events(3, 1, BASE + 5000));
  await feedSettled(pool);
  expect((await readAll(head, 3)).seen.map((e) => e.linkId)).toEqual([1]);
});

test("writers running side by side: every event is read exactly once across pages", async () => {
  const head = await feedHead(pool);
  const seen: number[] = [];
  let cursor = head;
  let stop = false;
  const reader = (async () => {
    while (!stop) {
      const { events: batch, next } = await readClickEventsAfter(pool, cursor, 37);
      for (const e of batch) if (e.workspaceId === 4) seen.push(e.linkId);
      cursor = next;
      if (!batch.length) await new Promise((r) => setImmediate(r));
    }
  })();
  const writes = Array.from({ length: 20 }, (_, w) =>
    insertClickEvents(
      pool,
      events(4, 10).map((e, i) => ({ ...e, linkId: w * 10 + i })),
    ),
  );
  await Promise.all(writes);
  const deadline = Date.now() + 60_000;
  while (seen.length < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  stop = true;
  await reader;
  expect(seen).toHaveLength(200);
  expect(new Set(seen).size).toBe(200);
});

test("a cursor is created once, moves only forward, and can be forgotten", async () => {
  expect(await readCursor(pool, "test:a")).toBeNull();
  const start = await ensureCursor(pool, "test:a", { tx: "10", seq: "5" });
  expect(start).toEqual({ tx: "10", seq: "5" });
  expect(await ensureCursor(pool, "test:a", FEED_START)).toEqual({ tx: "10", seq: "5" });
  await advanceCursor(pool, "test:a", { tx: "10", seq: "9" });
  await advanceCursor(pool, "test:a", { tx: "10", seq: "7" }); // behind: ignored
  expect(await readCursor(pool, "test:a")).toEqual({ tx: "10", seq: "9" });
  await advanceCursor(pool, "test:a", { tx: "11", seq: "1" });
  expect(await readCursor(pool, "test:a")).toEqual({ tx: "11", seq: "1" });
  await deleteCursor(pool, "test:a");
  expect(await readCursor(pool, "test:a")).toBeNull();
});

test("pruning deletes only events older than the keep period that every cursor has passed, a bounded number at a time", async () => {
  await pool.query(`delete from analytics.click_cursor`);
  await insertClickEvents(pool, events(5, 4, BASE - 10 * 86_400_000)); // old
  const count = async () =>
    (await pool.query(`select count(*)::int as n from analytics.click_event where workspace_id = 5`)).rows[0].n as number;
  const keepFrom = new Date(BASE - 3 * 86_400_000);
  expect(await pruneFedClickEvents(pool, keepFrom)).toBe(0); // no cursor: nothing is known to be read
  await feedSettled(pool);
  const { seen } = await readAll(FEED_START, 5);
  await ensureCursor(pool, "test:sink", seen[1].position); // passed the first two
  await ensureCursor(pool, "test:clicked", seen[3].position);
  await insertClickEvents(pool, events(5, 2, BASE)); // recent: kept whatever the cursors say
  expect(await pruneFedClickEvents(pool, keepFrom, 1)).toBe(1);
  expect(await pruneFedClickEvents(pool, keepFrom)).toBeGreaterThanOrEqual(1);
  expect(await count()).toBe(4);
  await feedSettled(pool);
  const left = await readAll(FEED_START, 5);
  expect(left.seen.map((e) => e.linkId)).toEqual([3, 4, 1, 2]);
  await advanceCursor(pool, "test:sink", left.next);
  await pruneFedClickEvents(pool, keepFrom);
  expect(await count()).toBe(2); // the recent two stay
  await pool.query(`delete from analytics.click_cursor`);
});
