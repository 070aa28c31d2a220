import type pg from "pg";
import { inPgTransaction } from "../../db/pg-transaction.ts";
import type { Queryable } from "../../db/queryable.ts";
import type { ClickEvent, ExportRow, TargetKind } from "../model.ts";
import { clickScopeCondition, clickScopeValues, type ClickScopeColumns } from "../../events/click-scope.ts";
import { feedOrderOnly, type FeedPosition } from "./feed.ts";

// The click-event feed (feed.ts) as link.clicked reads it: one workspace's counted clicks (never
// bots) after an endpoint's cursor, in commit order, in the endpoint's click scope (applied in SQL:
// clickScopeCondition, lib/events/click-scope.ts), bounded by the room and by the rows examined,
// and the position the cursor may move to. The cursors are "clicked:<endpointId>" in
// analytics.click_cursor (lib/clicks/clicked.ts keeps them).

export const CLICKED_CURSOR_PREFIX = "clicked:";

/** The click event's columns a link.clicked event says of a click (model.ts ClickEvent). */
type ClickedColumns = "at" | "linkId" | "target" | "country" | "city" | "referrerHost" | "referrerUrl" | "device" | "browser" | "os" | "qr";

/** What a link.clicked event says of a click, and where it is in the feed. */
export type FedClick = Pick<ClickEvent, ClickedColumns> & { position: FeedPosition };

// the export's row (model.ts) as far as link.clicked reads it, plus the feed's position and horizon
type Row = Omit<ExportRow, "domain" | "bot" | "destination" | "language"> & { tx: string; seq: string; horizon: string };

/**
 * The most feed rows of a workspace one read examines after a cursor (its bots and the clicks
 * outside the scope included): a read's work is bounded however many clicks the workspace's other
 * links get, and the cursor still moves past every row examined (at 250 ms a turn, 80,000 rows a
 * second per endpoint at most).
 */
export const CLICKED_EXAMINE_MAX = 20_000;

/**
 * What one read returns: the clicks to write, where the cursor may move, and whether the read
 * examined no row (nothing of the workspace after the cursor below the horizon).
 */
export type ClickedRead = { clicks: FedClick[]; next: FeedPosition; idle: boolean };

/**
 * Called in a transaction (the cursor reader's, lib/clicks/clicked.ts), whose sorting it switches
 * off (feed.ts feedOrderOnly).
 * Up to `room` counted clicks (never bots) of `workspaceId` after `after` whose link is in `scope`
 * (click-scope.ts, the links as they are now; a deleted link's clicks are in no scope), in commit
 * order, among the first `examine` feed rows of the workspace after `after`. `next`, where the
 * cursor may move without passing a click owed: the last click returned when the room filled; else
 * the last row examined when `examine` rows were; else the feed's horizon (every transaction below
 * it has finished, so no click of the workspace can appear between `after` and it later), never
 * before `after`. Only the returned clicks come into JavaScript; the rows passed over stay in SQL.
 */
export async function readWorkspaceClicksAfter(
  q: Queryable,
  workspaceId: number,
  scope: ClickScopeColumns,
  after: FeedPosition,
  room: number,
  examine = CLICKED_EXAMINE_MAX,
): Promise<ClickedRead> {
  // the feed rows examined: the workspace's after the cursor, below the horizon, in order (index
  // click_event_workspace_feed), at most $4. The scope is an EXISTS kept per row (OFFSET 0), so
  // the rows stay in feed order and the read stops at the room's last click: as a join, PostgreSQL
  // hashed the links, read the whole window and sorted it on every turn (15-20 ms against 0.5-1 ms
  // for a room of 200 behind a long backlog)
  await feedOrderOnly(q); // in feed order off that index, never gathered and sorted
  const window = (horizon: string) => `select c.* from analytics.click_event c
                   where c.workspace_id = $1 and (c.tx, c.seq) > ($2::xid8, $3::bigint) and c.tx < ${horizon}
                   order by c.tx, c.seq limit $4`;
  const { rows } = await q.query<Row>({
    name: "analytics_clicked_read",
    text: `with h as (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)
           select h.xmin::text as horizon, e.tx::text as tx, e.seq::text as seq, e.at, e.link_id, e.target, e.country, e.city,
                  e.referrer_host, e.referrer_url, e.device, e.browser, e.os, e.qr
             from h left join lateral (
               select c.* from (${window("h.xmin")}) c
                where not c.bot
                  and exists (select 1 from "Link" l where l.id = c.link_id and ${clickScopeCondition("l", 6)} offset 0)
                order by c.tx, c.seq limit $5) e on true`,
    values: [workspaceId, after.tx, after.seq, examine, room, ...clickScopeValues(scope)],
  });
  const clicks = rows.filter((r) => r.tx !== null).map(toClick);
  if (clicks.length >= room) return { clicks, next: clicks[clicks.length - 1].position, idle: false };
  // the room did not fill, so every in-scope click of the window is returned: was the window full
  // (its last row, the bound's), or empty? With the same horizon as the read above, this statement
  // sees the same rows (every transaction below it had finished)
  const horizon = rows[0].horizon;
  const end = await q.query<{ any: boolean; tx: string | null; seq: string | null }>({
    name: "analytics_clicked_window_end",
    text: `select exists (select 1 from (${window("$5::xid8")}) w) as any, b.tx::text as tx, b.seq::text as seq
             from (select 1) o left join lateral (select w.tx, w.seq from (${window("$5::xid8")}) w offset $4 - 1 limit 1) b on true`,
    values: [workspaceId, after.tx, after.seq, examine, horizon],
  });
  const { any, tx, seq } = end.rows[0];
  if (tx !== null && seq !== null) return { clicks, next: { tx, seq }, idle: false };
  return { clicks, next: BigInt(horizon) > BigInt(after.tx) ? { tx: horizon, seq: "0" } : after, idle: !any };
}

function toClick(r: Row): FedClick {
  return {
    position: { tx: r.tx, seq: r.seq },
    at: r.at.getTime(),
    linkId: r.link_id,
    target: r.target as TargetKind,
    country: r.country,
    city: r.city,
    referrerHost: r.referrer_host,
    referrerUrl: r.referrer_url,
    device: r.device,
    browser: r.browser,
    os: r.os,
    qr: r.qr,
  };
}

/** The endpoint ids that have a link.clicked cursor. */
export async function clickedCursorEndpoints(q: Queryable): Promise<number[]> {
  const { rows } = await q.query<{ name: string }>({
    name: "analytics_clicked_cursors",
    text: `select name from analytics.click_cursor where name like '${CLICKED_CURSOR_PREFIX}%'`,
  });
  return rows.map((r) => Number(r.name.slice(CLICKED_CURSOR_PREFIX.length)));
}

/** The cursor of an endpoint's link.clicked in the click-event feed. */
export function clickedCursorName(endpointId: number): string {
  return `${CLICKED_CURSOR_PREFIX}${endpointId}`;
}

/** The most feed rows one backlog count examines (its clicks and every other workspace's after the cursor). */
export const CLICKED_BACKLOG_CAP = 100_000;

/** Counted clicks behind an endpoint's link.clicked cursor, per clicked link, and whether the count stopped at the cap. */
export type ClickedBacklogByLink = { links: Map<number, { count: number; oldestAt: number }>; atLeast: boolean };

/**
 * The counted clicks (never bots) of `workspaceId` behind the link.clicked cursor of `endpointId`,
 * per link: what the cursor reader (lib/clicks/clicked.ts) still owes the endpoint before the click
 * scope and deleted links are applied (the caller knows the scope). Bounded: it examines at most
 * `cap` feed rows after the cursor, in feed order through the feed's index (tx, seq), every
 * workspace's; when it reaches them, `atLeast` says the true count may be higher. Null when the
 * endpoint has no cursor (no click since it subscribed).
 */
export async function clickedBacklogByLink(
  pool: pg.Pool,
  workspaceId: number,
  endpointId: number,
  cap = CLICKED_BACKLOG_CAP,
): Promise<ClickedBacklogByLink | null> {
  // its own transaction, for the feed's order (feedOrderOnly): the examined rows walk the feed index
  // from the cursor, whose position is a value of the scan (not a join's filter, which walked the
  // feed from its start)
  const rows = await inPgTransaction(pool, async (q) => {
    await feedOrderOnly(q);
    return (
      await q.query<{ cursor: boolean; link_id: number | null; n: number; oldest: Date | null; examined: number }>({
        name: "analytics_clicked_backlog",
        text: `with c as (select tx, seq from analytics.click_cursor where name = $2),
           examined as (
             select e.workspace_id, e.bot, e.link_id, e.at from analytics.click_event e
              where (e.tx, e.seq) > ((select tx from c), (select seq from c))
              order by e.tx, e.seq limit $3),
           total as (select count(*)::int as examined from examined),
           behind as (
             select link_id, count(*)::int as n, min(at) as oldest from examined
              where workspace_id = $1 and not bot group by link_id)
           select exists (select 1 from c) as cursor, b.link_id, coalesce(b.n, 0) as n, b.oldest, t.examined
             from total t left join behind b on true`,
        values: [workspaceId, clickedCursorName(endpointId), cap],
      })
    ).rows;
  });
  if (!rows[0]?.cursor) return null;
  const links = new Map<number, { count: number; oldestAt: number }>();
  for (const r of rows) if (r.link_id !== null) links.set(r.link_id, { count: r.n, oldestAt: r.oldest!.getTime() });
  return { links, atLeast: rows[0].examined >= cap };
}
