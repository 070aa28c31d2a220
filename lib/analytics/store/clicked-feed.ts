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
