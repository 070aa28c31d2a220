import type pg from "pg";
import { realTimeNow } from "../clock.ts";
import type { ScopedLink, ClickScopeColumns } from "./click-scope.ts";
import { inClickScope } from "./click-scope.ts";
import { newEventId, serializeEnvelope, type EventType, type EventWorkspace } from "./index.ts";
import { planSendsEvents, subscribedCondition } from "./subscription.ts";

// recordEvent (index.ts) for a transaction on a raw `pg` connection, in two forms that apply the same
// subscription rule (subscription.ts):
// - recordEventSql, one event (a single create with an enabled endpoint, lib/links/create.ts): the endpoints are
//   chosen, the event and its deliveries inserted, and the new delivery ids returned in ONE statement;
//   nothing is inserted when no endpoint wants the event.
// - clickSubscribers: the endpoints a batch's clicks are owed to (the click flush gives each its
//   link.clicked cursor, lib/clicks/deliveries.ts); clickedEndpoints and recordClickedDeliveries: the
//   cursor reader (lib/clicks/clicked.ts) writes a click's event (id derived from the click, shared
//   by every endpoint) and one endpoint's delivery only when an attempt can be made.
//   recordClickedEvents (every subscriber's deliveries of a batch at once) is the older form, kept
//   as the third writer tests/integration/events-subscription.test.ts compares.
// The caller hands the delivery ids off after its commit (handOffAfterCommit, index.ts).

type Client = Pick<pg.ClientBase, "query">;

const RECORD_EVENT = `
  with endpoints as (
    select e."id" from "WebhookEndpoint" e join "Workspace" w on w."id" = e."workspaceId"
    where e."workspaceId" = $2::int and ${subscribedCondition("$3::text")}
  ), event as (
    insert into "WebhookEvent" ("id", "workspaceId", "type", "createdAt", "body")
    select $1::text, $2::int, $3::text, $4::timestamptz, $5::text where exists (select 1 from endpoints)
    returning "id"
  )
  insert into "Delivery" ("eventId", "endpointId", "nextAttemptAt")
  select event."id", endpoints."id", $4::timestamptz from event, endpoints
  order by endpoints."id"
  returning "id"`;

/** Writes the event and its deliveries in the transaction of `q`; returns the new delivery ids. */
export async function recordEventSql(
  q: Client,
  workspace: EventWorkspace,
  type: Exclude<EventType, "webhook.test" | "link.clicked">,
  data: unknown,
  at: Date = new Date(realTimeNow()),
): Promise<number[]> {
  if (!planSendsEvents(workspace.plan)) return [];
  const id = newEventId();
  const { rows } = await q.query<{ id: number }>({
    name: "events_record",
    text: RECORD_EVENT,
    values: [id, workspace.id, type, at, serializeEnvelope(id, type, at, workspace, data)],
  });
  return rows.map((r) => r.id);
}

/** click events serialized between two turns of the event loop */
const SERIALIZE_SLICE = 1000;

export type ClickSubscriber = ClickScopeColumns & { endpointId: number; workspace: EventWorkspace };

/** The endpoints that receive link.clicked in these workspaces (but for the click scope), by workspace id. */
export async function clickSubscribers(q: Client, workspaceIds: number[]): Promise<Map<number, ClickSubscriber[]>> {
  const byWorkspace = new Map<number, ClickSubscriber[]>();
  if (!workspaceIds.length) return byWorkspace;
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
            where e."workspaceId" = any($1::int[]) and ${subscribedCondition("'link.clicked'")}
            order by e.id`,
    values: [workspaceIds],
  });
  for (const r of rows) {
    if (!planSendsEvents(r.plan)) continue;
    const s: ClickSubscriber = {
      endpointId: r.id,
      workspace: { id: r.workspaceId, slug: r.slug, name: r.name, plan: r.plan },
      clickFolders: r.clickFolders,
      clickTagIds: r.clickTagIds,
      clickLinkIds: r.clickLinkIds,
    };
    byWorkspace.set(r.workspaceId, [...(byWorkspace.get(r.workspaceId) ?? []), s]);
  }
  return byWorkspace;
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

/**
 * Writes one link.clicked event per click whose link (by linkId in `links`; a click on a link
 * deleted since is skipped) is in the scope of some subscriber of its workspace, and its
 * deliveries, on `q`. `data(click, link, i)` is the event's data for clicks[i]. Returns the new
 * delivery ids.
 */
export async function recordClickedEvents<C extends { workspaceId: number; linkId: number; at: number }, L extends ScopedLink>(
  q: Client,
  subscribers: Map<number, ClickSubscriber[]>,
  clicks: C[],
  links: Map<number, L>,
  data: (click: C, link: L, i: number) => unknown,
): Promise<number[]> {
  const ev = { id: [] as string[], workspace: [] as number[], at: [] as number[], body: [] as string[] };
  const dl = { event: [] as string[], endpoint: [] as number[], at: [] as number[] };
  for (let i = 0; i < clicks.length; i++) {
    // a second's worth of clicks takes a while to serialize: let waiting redirects through now and then
    if (i > 0 && i % SERIALIZE_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    const c = clicks[i];
    const link = links.get(c.linkId);
    if (!link) continue; // deleted since the click: nothing to describe it with
    const targets = (subscribers.get(c.workspaceId) ?? []).filter((s) => inClickScope(s, link));
    if (!targets.length) continue;
    const id = newEventId();
    ev.id.push(id);
    ev.workspace.push(c.workspaceId);
    ev.at.push(c.at);
    ev.body.push(serializeEnvelope(id, "link.clicked", new Date(c.at), targets[0].workspace, data(c, link, i)));
    for (const t of targets) {
      dl.event.push(id);
      dl.endpoint.push(t.endpointId);
      dl.at.push(c.at);
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

/** A link.clicked subscriber as the click cursors read it (lib/clicks/clicked.ts): waiting = its link.clicked deliveries not attempted yet. */
export type ClickedEndpoint = ClickSubscriber & { waiting: number };

/** Every endpoint that receives link.clicked now (the subscription rule but for the click scope), with its waiting deliveries. */
export async function clickedEndpoints(q: Client): Promise<ClickedEndpoint[]> {
  const { rows } = await q.query<{
    id: number;
    workspaceId: number;
    clickFolders: string[];
    clickTagIds: number[];
    clickLinkIds: number[];
    slug: string;
    name: string;
    plan: string;
    waiting: number;
  }>({
    name: "events_clicked_endpoints",
    text: `select e.id, e."workspaceId", e."clickFolders", e."clickTagIds", e."clickLinkIds", w.slug, w.name, w.plan,
                  (select count(*)::int from "Delivery" d join "WebhookEvent" v on v.id = d."eventId"
                    where d."endpointId" = e.id and d.status = 'pending' and d.attempts = 0 and v.type = 'link.clicked') as waiting
             from "WebhookEndpoint" e join "Workspace" w on w.id = e."workspaceId"
            where ${subscribedCondition("'link.clicked'")}
            order by e.id`,
  });
  return rows
    .filter((r) => planSendsEvents(r.plan))
    .map((r) => ({
      endpointId: r.id,
      workspace: { id: r.workspaceId, slug: r.slug, name: r.name, plan: r.plan },
      clickFolders: r.clickFolders,
      clickTagIds: r.clickTagIds,
      clickLinkIds: r.clickLinkIds,
      waiting: r.waiting,
    }));
}

/** One click's link.clicked event: its id derived from the click (the same on every attempt and resend). */
export type ClickedEvent = { id: string; at: number; body: string };

/**
 * Writes link.clicked events (unless written already for another endpoint: the id is the click's)
 * and one delivery each to `endpointId`, on `q` (the cursor's transaction). Returns the new delivery ids.
 */
export async function recordClickedDeliveries(
  q: Client,
  workspaceId: number,
  endpointId: number,
  events: ClickedEvent[],
): Promise<number[]> {
  if (!events.length) return [];
  await q.query({
    name: "events_insert_clicked_events",
    text: `insert into "WebhookEvent" (id, "workspaceId", type, "createdAt", body)
           select t.id, $1::int, 'link.clicked', to_timestamp(t.at / 1000.0), t.body
             from unnest($2::text[], $3::float8[], $4::text[]) as t(id, at, body)
           on conflict (id) do nothing`,
    values: [workspaceId, events.map((e) => e.id), events.map((e) => e.at), binaryTextArray(events.map((e) => e.body))],
  });
  const { rows } = await q.query<{ id: number }>({
    name: "events_insert_clicked_deliveries",
    text: `insert into "Delivery" ("eventId", "endpointId", "nextAttemptAt")
           select t.ev, $1::int, now() from unnest($2::text[]) as t(ev)
           on conflict ("eventId", "endpointId") do nothing
           returning id`,
    values: [endpointId, events.map((e) => e.id)],
  });
  return rows.map((r) => r.id);
}
