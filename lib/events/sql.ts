import { pooledRandomBytes } from "../keys/random.ts";
import type pg from "pg";
import { realTimeNow } from "../clock.ts";
import type { ScopedLink, ClickScopeColumns } from "./click-scope.ts";
import { inClickScope } from "./click-scope.ts";
import { newEventId, serializeEnvelope, type EventType, type EventWorkspace } from "./index.ts";
import { planSendsEvents, subscribedCondition } from "./subscription.ts";

// recordEvent (index.ts) for a raw `pg` connection, in forms that apply the same subscription rule
// (subscription.ts):
// - recordEventCte, one event as CTEs of the statement that makes the change (a single create,
//   lib/links/create-sql.ts): the endpoints are chosen, the event and its deliveries inserted in that
//   statement; nothing is inserted when no endpoint wants the event. Values only the statement knows
//   (a new row's id and time) fill holes left in the envelope (eventWithHoles), so the body is still
//   serialized once, in JS. recordEventSql is the same CTEs as a statement of their own (bulk create).
// - clickSubscribers: the endpoints a batch's clicks are owed to (the click flush gives each its
//   link.clicked cursor, lib/clicks/deliveries.ts); clickedEndpoints and recordClickedDeliveries: the
//   cursor reader (lib/clicks/clicked.ts) writes a click's event (id derived from the click, shared
//   by every endpoint) and one endpoint's delivery only when an attempt can be made.
//   recordClickedEvents (every subscriber's deliveries of a batch at once) is the older form, kept
//   as the third writer tests/integration/events-subscription.test.ts compares.
// The caller hands the delivery ids off after its commit (handOffAfterCommit, index.ts).

type Client = Pick<pg.ClientBase, "query">;

/** An event ready for recordEventCte: its envelope in `body` pieces, between which the statement's holes go. */
export type EventParts = { id: string; workspaceId: number; type: EventType; at: Date | null; body: string[] };

/**
 * The event `type` of `workspace` with `holes` values left to the statement that records it:
 * `data(hole)` builds the data with `hole(i)` where the i-th hole's value goes (a number or a string
 * the statement puts in as JSON: recordEventCte's `holes`). `at`: when the change happened, or
 * "statement": the statement's own instant of the change (recordEventCte's `at`), its first hole.
 * Null when the plan sends no events.
 */
export function eventWithHoles(
  workspace: EventWorkspace,
  type: Exclude<EventType, "webhook.test" | "link.clicked">,
  holes: number,
  data: (hole: (i: number) => unknown) => unknown,
  at: Date | "statement" = new Date(realTimeNow()),
): EventParts | null {
  if (!planSendsEvents(workspace.plan)) return null;
  const id = newEventId();
  // a random mark: no data (a title, a URL) can contain it by chance or on purpose (the pool's bytes
  // come from the system's generator and are never shown)
  const mark = `\u0000hole-${pooledRandomBytes(12).toString("hex")}-`;
  const createdAt = at === "statement" ? { toISOString: () => `${mark}at` } : at;
  let rest = serializeEnvelope(
    id,
    type,
    createdAt,
    workspace,
    data((i) => mark + i),
  );
  const marks = (at === "statement" ? ["at"] : []).concat(Array.from({ length: holes }, (_, i) => String(i)));
  const body: string[] = [];
  for (const m of marks) {
    const found = rest.indexOf(JSON.stringify(mark + m));
    if (found < 0) throw new Error(`the event's data has no hole ${m}`);
    body.push(rest.slice(0, found));
    rest = rest.slice(found + JSON.stringify(mark + m).length);
  }
  body.push(rest);
  return { id, workspaceId: workspace.id, type, at: at === "statement" ? null : at, body };
}

/** The parameters of recordEventCte, in its order (p(1)..p(5)); the body's pieces as a binary array (binaryTextArray). */
export const eventValues = (e: EventParts): unknown[] => [e.id, e.workspaceId, e.type, e.at, binaryTextArray(e.body)];

/** An instant as the envelope writes it (Date.toISOString), as JSON text, in SQL. */
const isoJson = (at: string) => `to_json(to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))::text`;

/**
 * The CTEs event_endpoints, event and event_deliveries ("id": the new deliveries): the event of
 * `p(1)`..`p(5)` (eventValues), written for each row of `source` (a relation of at most one row;
 * none: nothing written) when an endpoint of the workspace receives it, with the body's holes filled
 * by `holes` (SQL expressions of `source`'s row, as text in JSON form, in order). `at`: the SQL
 * instant of the change, for an event made with at "statement" (eventWithHoles).
 */
export function recordEventCte(p: (i: number) => string, source: string, holes: string[], at?: string): string {
  const piece = (i: number) => `(${p(5)}::text[])[${i}]`;
  const filled = at ? [isoJson(at), ...holes] : holes;
  const body = [piece(1), ...filled.map((h, i) => `(${h}) || ${piece(i + 2)}`)].join(" || ");
  const createdAt = at ? `coalesce(${p(4)}::timestamptz, ${at})` : `${p(4)}::timestamptz`;
  return `event_endpoints as (
    select e."id" from "WebhookEndpoint" e join "Workspace" w on w."id" = e."workspaceId"
    where e."workspaceId" = ${p(2)}::int and ${subscribedCondition(`${p(3)}::text`)}
  ), event as (
    insert into "WebhookEvent" ("id", "workspaceId", "type", "createdAt", "body")
    select ${p(1)}::text, ${p(2)}::int, ${p(3)}::text, ${createdAt}, ${body} from ${source}
    where exists (select 1 from event_endpoints)
    returning "id", "createdAt"
  ), event_deliveries as (
    insert into "Delivery" ("eventId", "endpointId", "nextAttemptAt")
    select event."id", event_endpoints."id", event."createdAt" from event, event_endpoints
    order by event_endpoints."id"
    returning "id", "endpointId"
  )`;
}

const RECORD_EVENT = `with ${recordEventCte((i) => `$${i}`, "(select 1) as one", [])} select "id" from event_deliveries order by "id"`;

/** Writes the event and its deliveries in the transaction of `q`; returns the new delivery ids. */
export async function recordEventSql(
  q: Client,
  workspace: EventWorkspace,
  type: Exclude<EventType, "webhook.test" | "link.clicked">,
  data: unknown,
  at: Date = new Date(realTimeNow()),
): Promise<number[]> {
  const event = eventWithHoles(workspace, type, 0, () => data, at);
  if (!event) return [];
  const { rows } = await q.query<{ id: number }>({ name: "events_record", text: RECORD_EVENT, values: eventValues(event) });
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
