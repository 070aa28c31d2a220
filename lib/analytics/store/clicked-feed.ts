import type { Queryable } from "../../db/queryable.ts";
import type { ClickEvent, ExportRow, TargetKind } from "../model.ts";
import type { FeedPosition } from "./feed.ts";

// The click-event feed (feed.ts) as link.clicked reads it: one workspace's counted clicks (never
// bots) after an endpoint's cursor, in commit order, and the position the cursor may move to. The
// cursors are "clicked:<endpointId>" in analytics.click_cursor (lib/clicks/clicked.ts keeps them).

export const CLICKED_CURSOR_PREFIX = "clicked:";

/** The click event's columns a link.clicked event says of a click (model.ts ClickEvent). */
type ClickedColumns = "at" | "linkId" | "target" | "country" | "city" | "referrerHost" | "referrerUrl" | "device" | "browser" | "os" | "qr";

/** What a link.clicked event says of a click, and where it is in the feed. */
export type FedClick = Pick<ClickEvent, ClickedColumns> & { position: FeedPosition };

// the export's row (model.ts) as far as link.clicked reads it, plus the feed's position and horizon
type Row = Omit<ExportRow, "domain" | "bot" | "destination" | "language"> & { tx: string; seq: string; horizon: string };

/**
 * Up to `limit` counted clicks of `workspaceId` after `after`, in commit order, and `next`: the last
 * one's position when the limit was reached, else the feed's horizon (every transaction below it has
 * finished, so no click of the workspace can appear between `after` and it later), never before `after`.
 */
export async function readWorkspaceClicksAfter(
  q: Queryable,
  workspaceId: number,
  after: FeedPosition,
  limit: number,
): Promise<{ clicks: FedClick[]; next: FeedPosition }> {
  const { rows } = await q.query<Row>({
    name: "analytics_clicked_read",
    text: `with h as (select pg_snapshot_xmin(pg_current_snapshot()) as xmin)
           select h.xmin::text as horizon, e.tx::text as tx, e.seq::text as seq, e.at, e.link_id, e.target, e.country, e.city,
                  e.referrer_host, e.referrer_url, e.device, e.browser, e.os, e.qr
             from h left join lateral (
               select * from analytics.click_event c
                where (c.tx, c.seq) > ($2::xid8, $3::bigint) and c.tx < h.xmin and c.workspace_id = $1 and not c.bot
                order by c.tx, c.seq limit $4) e on true`,
    values: [workspaceId, after.tx, after.seq, limit],
  });
  const clicks = rows.filter((r) => r.tx !== null).map(toClick);
  if (clicks.length >= limit) return { clicks, next: clicks[clicks.length - 1].position };
  const horizon = { tx: rows[0].horizon, seq: "0" };
  return { clicks, next: BigInt(horizon.tx) > BigInt(after.tx) ? horizon : after };
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
  q: Queryable,
  workspaceId: number,
  endpointId: number,
  cap = CLICKED_BACKLOG_CAP,
): Promise<ClickedBacklogByLink | null> {
  const { rows } = await q.query<{ cursor: boolean; link_id: number | null; n: number; oldest: Date | null; examined: number }>({
    name: "analytics_clicked_backlog",
    text: `with c as (select tx, seq from analytics.click_cursor where name = $2),
           examined as (
             select e.workspace_id, e.bot, e.link_id, e.at from analytics.click_event e, c
              where (e.tx, e.seq) > (c.tx, c.seq)
              order by e.tx, e.seq limit $3),
           total as (select count(*)::int as examined from examined),
           behind as (
             select link_id, count(*)::int as n, min(at) as oldest from examined
              where workspace_id = $1 and not bot group by link_id)
           select exists (select 1 from c) as cursor, b.link_id, coalesce(b.n, 0) as n, b.oldest, t.examined
             from total t left join behind b on true`,
    values: [workspaceId, clickedCursorName(endpointId), cap],
  });
  if (!rows[0]?.cursor) return null;
  const links = new Map<number, { count: number; oldestAt: number }>();
  for (const r of rows) if (r.link_id !== null) links.set(r.link_id, { count: r.n, oldestAt: r.oldest!.getTime() });
  return { links, atLeast: rows[0].examined >= cap };
}
