import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { ClickEvent } from "../analytics/model.ts";
import { newEventId, serializeEnvelope, type EventWorkspace } from "../events/index.ts";
import type { Link } from "../db/generated/client.ts";
import { config } from "../config/index.ts";
import { toWebhookLink, type WebhookLink } from "../links/serialize.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { inClickScope, type ClickScopeColumns } from "../events/click-scope.ts";

// link.clicked: the click flush (clicks.ts) calls recordClickDeliveries inside the transaction that
// stores the click events, so a stored click is an owed delivery and a rolled-back (then retried)
// flush leaves none behind. Per flush: one query for the batch's workspaces' subscriptions, and
// only when there is one, one for the clicked links; nothing per request.

/** The flush transaction's client. */
type FlushClient = Pick<pg.PoolClient, "query">;

/** click events serialized between two turns of the event loop */
const SERIALIZE_SLICE = 1000;

export type ClickSubscriber = ClickScopeColumns & { endpointId: number; workspace: EventWorkspace };

/** Enabled endpoints that selected link.clicked, in active workspaces whose plan has webhooks. */
export async function clickSubscribers(q: FlushClient, workspaceIds: number[]): Promise<ClickSubscriber[]> {
  if (!workspaceIds.length) return [];
  const { rows } = await q.query<{
    id: number;
    workspaceId: number;
    clickFolders: string[];
    clickTagIds: number[];
    clickLinkIds: number[];
    slug: string;
    name: string;
    plan: string;
  }>({
    name: "webhooks_click_subscribers",
    text: `select e.id, e."workspaceId", e."clickFolders", e."clickTagIds", e."clickLinkIds", w.slug, w.name, w.plan
             from "WebhookEndpoint" e join "Workspace" w on w.id = e."workspaceId"
            where e."workspaceId" = any($1::int[]) and e.enabled and w.active and 'link.clicked' = any(e.events)
            order by e.id`,
    values: [workspaceIds],
  });
  return rows
    .filter((r) => webhooksAllowed(planOf(r.plan)))
    .map((r) => ({
      endpointId: r.id,
      workspace: { id: r.workspaceId, slug: r.slug, name: r.name, plan: r.plan },
      clickFolders: r.clickFolders,
      clickTagIds: r.clickTagIds,
      clickLinkIds: r.clickLinkIds,
    }));
}

export type ClickedLink = { id: number; folder: string; tagIds: number[]; object: WebhookLink };

/** The links as they are now (folder, tags, and the webhook link object), by id. */
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

/**
 * A text[] parameter in PostgreSQL's binary array format (array_recv: ndim, has-nulls, element
 * type, size and lower bound, then each element's length and bytes); the driver sends a Buffer as
 * binary. The envelopes are ~1 kB of JSON each: as an array literal every quote would be escaped by
 * the driver and parsed back by PostgreSQL.
 */
export function binaryTextArray(values: string[]): Buffer {
  const encoded = values.map((v) => Buffer.from(v, "utf8"));
  const buf = Buffer.allocUnsafe(20 + encoded.reduce((n, b) => n + 4 + b.length, 0));
  buf.writeInt32BE(1, 0);
  buf.writeInt32BE(0, 4);
  buf.writeInt32BE(25, 8); // text
  buf.writeInt32BE(values.length, 12);
  buf.writeInt32BE(1, 16);
  let o = 20;
  for (const b of encoded) {
    buf.writeInt32BE(b.length, o);
    b.copy(buf, o + 4);
    o += 4 + b.length;
  }
  return buf;
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
  if (!subscribers.length) return [];
  const byWorkspace = new Map<number, ClickSubscriber[]>();
  for (const s of subscribers) byWorkspace.set(s.workspace.id, [...(byWorkspace.get(s.workspace.id) ?? []), s]);
  const relevant = counted.filter((e) => byWorkspace.has(e.workspaceId));
  const links = await clickedLinks(q, [...new Set(relevant.map((e) => e.linkId))]);
  const ids = clickIds(relevant.length);
  const ev = { id: [] as string[], workspace: [] as number[], at: [] as number[], body: [] as string[] };
  const dl = { event: [] as string[], endpoint: [] as number[], at: [] as number[] };
  for (let i = 0; i < relevant.length; i++) {
    // a second's worth of clicks takes a while to serialize: let waiting redirects through now and then
    if (i > 0 && i % SERIALIZE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const e = relevant[i];
    const link = links.get(e.linkId);
    if (!link) continue; // deleted since the click: nothing to describe it with
    const targets = byWorkspace.get(e.workspaceId)!.filter((s) => inClickScope(s, link));
    if (!targets.length) continue;
    const id = newEventId();
    const data = { click: clickData(e, ids[i]), link: link.object };
    ev.id.push(id);
    ev.workspace.push(e.workspaceId);
    ev.at.push(e.at);
    ev.body.push(serializeEnvelope(id, "link.clicked", new Date(e.at), targets[0].workspace, data));
    for (const t of targets) {
      dl.event.push(id);
      dl.endpoint.push(t.endpointId);
      dl.at.push(e.at);
    }
  }
  if (!ev.id.length) return [];
  await q.query({
    name: "webhooks_insert_click_events",
    text: `insert into "WebhookEvent" (id, "workspaceId", type, "createdAt", body)
           select t.id, t.ws, 'link.clicked', to_timestamp(t.at / 1000.0), t.body
             from unnest($1::text[], $2::int[], $3::float8[], $4::text[]) as t(id, ws, at, body)`,
    values: [ev.id, ev.workspace, ev.at, binaryTextArray(ev.body)],
  });
  const { rows } = await q.query<{ id: number }>({
    name: "webhooks_insert_click_deliveries",
    text: `insert into "Delivery" ("eventId", "endpointId", "nextAttemptAt")
           select t.ev, t.ep, to_timestamp(t.at / 1000.0) from unnest($1::text[], $2::int[], $3::float8[]) as t(ev, ep, at)
           returning id`,
    values: [dl.event, dl.endpoint, dl.at],
  });
  return rows.map((r) => r.id);
}
