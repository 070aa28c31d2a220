import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { clickedBacklogByLink, clickedCursorName, readWorkspaceClicksAfter } from "../../lib/analytics/store/clicked-feed.ts";
import { insertClickEvents } from "../../lib/analytics/store/events-insert.ts";
import { ensureMonthPartition, monthOf, nextMonth } from "../../lib/analytics/store/partitions.ts";
import { inPgTransaction } from "../../lib/db/pg-transaction.ts";
import { advanceCursor, readClickEventsAfter, type FeedPosition } from "../../lib/clicks/feed.ts";
import { storedClick } from "../support/click-hits.ts";
import { createTestDatabase, feedRowsFetchedBy } from "../support/db.ts";

// Every read of the click-event feed "after a position, in feed order, up to a bound" (the
// link.clicked cursor read, the ClickHouse sink's read, the Developers page's backlog count) walks
// the feed's index and stops at its bound, also when PostgreSQL's statistics are older than the
// rows after the position (lib/analytics/store/feed.ts feedOrderOnly). The file's data: a workspace
// whose 3,000 clicks were analyzed, then 30,000 more that the statistics do not know of, with the
// month partitions the app keeps ahead, autovacuum off for them so the statistics stay old.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
const BASE = Date.UTC(2026, 10, 20, 12);
const BEHIND = 30_000;
let workspaceId: number;
let linkId: number;
/** The last click the statistics know of: every read starts after it. */
let analyzed: FeedPosition;

function clicks(n: number, from: number): ClickEvent[] {
  return Array.from({ length: n }, (_, i) => storedClick({ at: BASE + from + i, workspaceId, linkId, visitor: String(1000 + i) }));
}

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const month = monthOf(BASE);
  for (const m of [month, nextMonth(month), nextMonth(nextMonth(month))]) await ensureMonthPartition(pool, m);
  const ws = await pool.query<{ id: number }>(
    `insert into "Workspace" (slug, name, plan) values ('feed-order', 'Feed order', 'business') returning id`,
  );
  workspaceId = ws.rows[0].id;
  const link = await pool.query<{ id: number }>(
    `insert into "Link" ("workspaceId", code, url) values ($1, 'feed-order', 'https://example.com/') returning id`,
    [workspaceId],
  );
  linkId = link.rows[0].id;
  // 3,000 clicks in 10 transactions (10 places in commit order), then the statistics
  for (let i = 0; i < 10; i++) await inPgTransaction(pool, (q) => insertClickEvents(q, clicks(300, i * 300)));
  await pool.query(`analyze analytics.click_event`);
  const { rows: partitions } = await pool.query<{ name: string }>(
    `select c.oid::regclass::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'analytics.click_event'::regclass`,
  );
  for (const p of partitions) await pool.query(`alter table ${p.name} set (autovacuum_enabled = false)`);
  const { rows: last } = await pool.query<FeedPosition>(
    `select tx::text as tx, seq::text as seq from analytics.click_event order by tx desc, seq desc limit 1`,
  );
  analyzed = last[0];
  await inPgTransaction(pool, (q) => insertClickEvents(q, clicks(BEHIND, 3_000)));
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

// a plan from the old statistics (every row after the position gathered, then sorted) fetched all
// 30,000 rows (twice, for the link.clicked read's two statements)

test("the link.clicked read of 10 clicks fetches about 10 feed rows, not the 30,000 after the cursor", async () => {
  const scope = { clickFolders: [], clickTagIds: [], clickLinkIds: [linkId] };
  const { result, fetched } = await feedRowsFetchedBy(pool, (client) => readWorkspaceClicksAfter(client, workspaceId, scope, analyzed, 10));
  expect(result.clicks).toHaveLength(10);
  expect(fetched).toBeLessThan(100);
});

test("the sink's read of 10 events fetches about 10 feed rows", async () => {
  const { result, fetched } = await feedRowsFetchedBy(pool, (client) => readClickEventsAfter(client, analyzed, 10));
  expect(result.events).toHaveLength(10);
  expect(fetched).toBeLessThan(100);
});

test("the backlog count with a cap of 1,000 fetches about 1,000 feed rows", async () => {
  const endpointId = 1_000_001; // the count reads only the cursor of that name
  await advanceCursor(pool, clickedCursorName(endpointId), analyzed);
  // one connection, so its statistics can be flushed and read after the count's own transaction
  const single = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    const fetched = async () => {
      await single.query(`select pg_stat_force_next_flush()`);
      const { rows } = await single.query<{ n: string }>(
        `select coalesce(sum(coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0)), 0)::text as n
           from pg_stat_user_tables where schemaname = 'analytics' and relname like 'click_event%'`,
      );
      return Number(rows[0].n);
    };
    const before = await fetched();
    const backlog = await clickedBacklogByLink(single, workspaceId, endpointId, 1_000);
    const after = await fetched();
    expect(backlog?.atLeast).toBe(true);
    expect(backlog?.links.get(linkId)?.count).toBe(1_000);
    expect(after - before).toBeLessThan(1_100);
  } finally {
    await single.end();
  }
});
