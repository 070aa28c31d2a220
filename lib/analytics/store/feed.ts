import type { ClickEvent, ExportRow, TargetKind } from "../model.ts";
import type { Queryable } from "../../db/queryable.ts";

// The click-event feed: "the stored click events in commit order after a position", for readers
// that must see each event once (the ClickHouse sink, lib/analytics/clickhouse/sink.ts; the
// link.clicked cursors), and the cursors they keep (analytics.click_cursor). See the migration
// *_click_event_feed for why a position is (tx, seq) and why only transactions below the oldest
// running one are read: every row this returns is committed, and no row can later appear at or
// before a position it has returned.

/** A place in the feed: the writing transaction (xid8, decimal) and the row's seq (bigint, decimal). */
export type FeedPosition = { tx: string; seq: string };

/** Before every event, those stored before the feed existed included. */
export const FEED_START: FeedPosition = { tx: "0", seq: "0" };

export type FedClickEvent = ClickEvent & { position: FeedPosition };

/** The most events one read returns (a reader's batch is bounded). */
export const FEED_READ_MAX = 50_000;

// the export's row (model.ts) plus what only the feed reads; destination and language come through
// `e.*` when present (columns added later)
type Row = Omit<ExportRow, "destination" | "language"> &
  Partial<Pick<ExportRow, "destination" | "language">> & { tx: string; seq: string; workspace_id: number; visitor: string };

/**
 * Makes the rest of the caller's transaction read the feed in its index's order only: sorting is
 * switched off. Every read "after a position, in feed order, up to a bound" must walk an index on
 * (tx, seq) and stop at the bound; a plan that gathers every row after the position and sorts
 * them reads without bound. PostgreSQL took such a plan whenever its statistics were older than
 * the rows (a partition grown since it was last analyzed, as the current month is between
 * autovacuum's analyzes, and the feed is an Append of the month partitions, so the order needs a
 * merge the planner then priced above a sort of the "47 rows" it expected): a link.clicked read of
 * 10 rows sorted 44,000 on disk (100-250 ms, bench:redirect (d)), and a reader far behind would
 * sort millions. With sorting off the index's order is the only plan. The caller's other
 * statements in that transaction must not need a sort. Outside a transaction it lasts its own
 * statement only: call it first thing in the reader's transaction.
 */
export async function feedOrderOnly(q: Queryable): Promise<void> {
  await q.query({ name: "analytics_feed_order_only", text: `select set_config('enable_sort', 'off', true)` });
}

/**
 * Up to `limit` events after `after`, in commit order, and the position to read from next (the
 * last event's, or `after` when there is none yet). Repeating a read from the same position gives
 * the same events first (rows are only ever added behind the newest finished transaction), so a
 * sink can name a batch by its first and last position. Called in a transaction (the sink's), whose
 * sorting it switches off (feedOrderOnly).
 */
export async function readClickEventsAfter(
  q: Queryable,
  after: FeedPosition,
  limit: number,
): Promise<{ events: FedClickEvent[]; next: FeedPosition }> {
  const n = Math.max(1, Math.min(FEED_READ_MAX, Math.floor(limit)));
  await feedOrderOnly(q);
  const { rows } = await q.query<Row>({
    name: "analytics_feed_read",
    text: `select e.*, e.tx::text as tx, e.seq::text as seq, e.visitor::text as visitor
           from analytics.click_event e
           where (e.tx, e.seq) > ($1::xid8, $2::bigint) and e.tx < pg_snapshot_xmin(pg_current_snapshot())
           order by e.tx, e.seq
           limit $3`,
    values: [after.tx, after.seq, n],
  });
  const events = rows.map(toEvent);
  return { events, next: events.length ? events[events.length - 1].position : after };
}

function toEvent(r: Row): FedClickEvent {
  return {
    position: { tx: r.tx, seq: r.seq },
    at: r.at.getTime(),
    workspaceId: r.workspace_id,
    linkId: r.link_id,
    domain: r.domain,
    target: r.target as TargetKind,
    country: r.country,
    city: r.city,
    referrerHost: r.referrer_host,
    referrerUrl: r.referrer_url,
    device: r.device,
    browser: r.browser,
    os: r.os,
    bot: r.bot,
    qr: r.qr,
    visitor: r.visitor,
    destination: r.destination ?? null,
    language: r.language ?? null,
  };
}

/** Where no event has been stored yet and every later one will be: a new reader that wants only what comes next starts here. */
export async function feedHead(q: Queryable): Promise<FeedPosition> {
  const { rows } = await q.query<{ tx: string }>({
    name: "analytics_feed_head",
    text: `select pg_snapshot_xmin(pg_current_snapshot())::text as tx`,
  });
  // seq starts at 1, so (xmin, 0) is before every row of the oldest running transaction
  return { tx: rows[0].tx, seq: "0" };
}

/** The cursor's position, or null when there is no cursor of that name. */
export async function readCursor(q: Queryable, name: string): Promise<FeedPosition | null> {
  const { rows } = await q.query<FeedPosition>({
    name: "analytics_cursor_read",
    text: `select tx::text as tx, seq::text as seq from analytics.click_cursor where name = $1`,
    values: [name],
  });
  return rows[0] ?? null;
}

/**
 * Creates the cursor at `position` when it does not exist; an existing one is left where it is.
 * Returns where the cursor is.
 */
export async function ensureCursor(q: Queryable, name: string, position: FeedPosition): Promise<FeedPosition> {
  await q.query({
    name: "analytics_cursor_ensure",
    text: `insert into analytics.click_cursor (name, tx, seq) values ($1, $2::xid8, $3::bigint) on conflict (name) do nothing`,
    values: [name, position.tx, position.seq],
  });
  return (await readCursor(q, name))!;
}

/**
 * Moves the cursor to `position` (creating it when absent). A cursor only moves forward: a
 * position at or before the stored one changes nothing (a reader that lost a race re-reads).
 */
export async function advanceCursor(q: Queryable, name: string, position: FeedPosition): Promise<void> {
  await q.query({
    name: "analytics_cursor_advance",
    text: `insert into analytics.click_cursor as c (name, tx, seq) values ($1, $2::xid8, $3::bigint)
           on conflict (name) do update set tx = excluded.tx, seq = excluded.seq, updated_at = now()
           where (c.tx, c.seq) < (excluded.tx, excluded.seq)`,
    values: [name, position.tx, position.seq],
  });
}

/** Forgets a cursor (its reader is gone: an endpoint deleted, the sink switched off). */
export async function deleteCursor(q: Queryable, name: string): Promise<void> {
  await q.query({ name: "analytics_cursor_delete", text: `delete from analytics.click_cursor where name = $1`, values: [name] });
}

/**
 * Deletes up to `limit` events that every cursor has passed and that are older than `before`
 * (PostgreSQL keeps click events only as long as the feed's readers need them, when ClickHouse
 * holds them for reports). With no cursor at all nothing is deleted. Returns the rows deleted.
 */
export async function pruneFedClickEvents(q: Queryable, before: Date, limit = 100_000): Promise<number> {
  const { rowCount } = await q.query({
    name: "analytics_feed_prune",
    text: `with low as (select tx, seq from analytics.click_cursor order by tx, seq limit 1)
           delete from analytics.click_event e
           where e.at < $1::timestamptz and (e.tx, e.seq) in (
             select d.tx, d.seq from analytics.click_event d, low
             where d.at < $1::timestamptz and (d.tx, d.seq) <= (low.tx, low.seq)
             order by d.tx, d.seq limit $2)`,
    values: [before, limit],
  });
  return rowCount ?? 0;
}
