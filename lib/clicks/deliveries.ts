import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { ClickEvent } from "../analytics/model.ts";
import type { Link } from "../db/generated/client.ts";
import { config } from "../config/index.ts";
import { clickSubscribers, recordClickedEvents } from "../events/sql.ts";
import { toWebhookLink, type WebhookLink } from "../links/serialize.ts";

// link.clicked: the click flush (writer.ts) calls recordClickDeliveries inside the transaction that
// stores the click events, so a stored click is an owed delivery and a rolled-back (then retried)
// flush leaves none behind. Who receives the events, and the event and delivery rows, are
// lib/events' (sql.ts); here, what a click event says. Per flush: one query for the batch's
// workspaces' subscriptions, and only when there is one, one for the clicked links; nothing per request.

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

/** The click object of the event: never the visitor key, never an address (the event has none). */
export function clickData(e: ClickEvent, id: string) {
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

/** "clk_" and 24 lowercase hex characters, from one buffer of randomness per batch. */
function clickIds(n: number): string[] {
  const bytes = randomBytes(12 * n);
  return Array.from({ length: n }, (_, i) => "clk_" + bytes.toString("hex", i * 12, i * 12 + 12));
}

/**
 * Writes one link.clicked event per counted click (bots never) on a link in some subscriber's
 * scope, and its deliveries, on `q` (the flush's transaction). Returns the new delivery ids.
 */
export async function recordClickDeliveries(q: FlushClient, events: ClickEvent[]): Promise<number[]> {
  const counted = events.filter((e) => !e.bot);
  if (!counted.length) return [];
  const subscribers = await clickSubscribers(q, [...new Set(counted.map((e) => e.workspaceId))]);
  if (!subscribers.size) return [];
  const relevant = counted.filter((e) => subscribers.has(e.workspaceId));
  const links = await clickedLinks(q, [...new Set(relevant.map((e) => e.linkId))]);
  const ids = clickIds(relevant.length);
  return recordClickedEvents(q, subscribers, relevant, links, (e, link, i) => ({ click: clickData(e, ids[i]), link: link.object }));
}
