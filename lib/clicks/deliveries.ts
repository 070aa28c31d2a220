import { createHash } from "node:crypto";
import type pg from "pg";
import type { ClickEvent } from "../analytics/model.ts";
import { clickedCursorName, type FedClick } from "../analytics/store/clicked-feed.ts";
import type { Link } from "../db/generated/client.ts";
import { config } from "../config/index.ts";
import { eventIdAt } from "../events/index.ts";
import { clickSubscribers } from "../events/sql.ts";
import { toWebhookLink, type WebhookLink } from "../links/serialize.ts";
import { ensureCursor, type FeedPosition } from "./feed.ts";

// link.clicked without rows per click: a stored click event IS the delivery owed to every endpoint
// subscribed when it committed, because each such endpoint has a cursor in the click-event feed
// ("clicked:<endpointId>", lib/analytics/store/feed.ts) that is behind it. The click flush
// (writer.ts) makes sure of that in its own transaction (oweClickedDeliveries: the cursors of the
// batch's workspaces' subscribers, created just before this transaction's events when absent);
// the cursor reader (clicked.ts) writes an event and a delivery only when an attempt can be made.
// Here: the cursors' names, the ids derived from a click, and what a click event says.

/** The flush transaction's client. */
type FlushClient = Pick<pg.PoolClient, "query">;

export type ClickedLink = { id: number; folder: string; tagIds: number[]; object: WebhookLink };

/**
 * The links as they are now (folder, tags, and the webhook link object), by id: read here, in the
 * flush's transaction, to describe the clicks (a read of lib/links' tables on the flush's path).
 */
export async function clickedLinks(q: FlushClient, linkIds: number[]): Promise<Map<number, ClickedLink>> {
  if (!linkIds.length) return new Map();
  const { rows } = await q.query<Link & { host: string | null; tagIds: number[] }>({
    name: "webhooks_clicked_links",
    text: `select l.*, d.host, array(select t."tagId" from "LinkTag" t where t."linkId" = l.id) as "tagIds"
             from "Link" l left join "Domain" d on d.id = l."domainId"
            where l.id = any($1::int[])`,
    values: [linkIds],
  });
  const shortDomain = config().shortDomain;
  return new Map(
    rows.map((r) => [r.id, { id: r.id, folder: r.folder, tagIds: r.tagIds, object: toWebhookLink(r, r.host ?? shortDomain) }]),
  );
}

// the cursor of an endpoint's link.clicked in the click-event feed (named where the feed's readers are)
export { clickedCursorName };

function clickDigest(kind: string, p: FeedPosition): string {
  return createHash("sha256").update(`${kind}\n${p.tx}\n${p.seq}`).digest("hex");
}

/**
 * The envelope id of a click's link.clicked event, the same for every endpoint, attempt and resend:
 * eventIdAt (lib/events) with the click's time `at` (unix ms) and 20 hex of a digest of its place
 * in the feed, so clicks' events sort by time like every other event.
 */
export function clickedEventId(p: FeedPosition, at: number): string {
  return eventIdAt(at, clickDigest("link.clicked", p).slice(0, 20));
}

/** The click's id in the event ("clk_" + 24 hex), derived from its place in the feed. */
export function clickId(p: FeedPosition): string {
  return "clk_" + clickDigest("click", p).slice(0, 24);
}

/** The click object of the event: never the visitor key, never an address (the event has none). */
export function clickData(e: FedClick | ClickEvent, id: string) {
  return {
    id,
    time: e.at,
    country: e.country,
    city: e.city,
    referrerHost: e.referrerHost,
    referrerUrl: e.referrerUrl,
    device: e.device,
    browser: e.browser,
    os: e.os,
    qr: e.qr,
    target: e.target,
  };
}

/**
 * In the flush's transaction: every endpoint that receives link.clicked in the workspaces of the
 * batch's counted clicks gets its cursor, when it has none yet, just before this transaction's
 * events; an existing cursor is behind them already. So every click stored is owed, in the same
 * commit, to each endpoint subscribed then (its scope is applied when the cursor reads).
 */
export async function oweClickedDeliveries(q: FlushClient, events: ClickEvent[]): Promise<void> {
  const workspaces = new Set<number>();
  for (const e of events) if (!e.bot) workspaces.add(e.workspaceId);
  if (!workspaces.size) return;
  const subscribers = await clickSubscribers(q, [...workspaces]);
  if (!subscribers.size) return;
  const { rows } = await q.query<{ tx: string }>({ name: "clicks_current_tx", text: `select pg_current_xact_id()::text as tx` });
  for (const list of subscribers.values()) {
    for (const s of list) await ensureCursor(q, clickedCursorName(s.endpointId), { tx: rows[0].tx, seq: "0" });
  }
}
