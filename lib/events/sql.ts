import type pg from "pg";
import { realTimeNow } from "../clock.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { newEventId, serializeEnvelope, type EventType, type EventWorkspace } from "./index.ts";

// recordEvent (index.ts) for a transaction on a raw `pg` connection (the API's single create,
// lib/links/create-one.ts): the same rule (a plan with webhooks, an active workspace, enabled endpoints
// that selected the type; the envelope serialized once) in ONE statement: the endpoints are chosen,
// the event and its deliveries inserted, and the new delivery ids returned. Nothing is inserted when
// no endpoint wants the event.

const RECORD_EVENT = `
  with endpoints as (
    select e."id" from "WebhookEndpoint" e join "Workspace" w on w."id" = e."workspaceId"
    where e."workspaceId" = $2::int and e."enabled" and w."active" and (e."allEvents" or $3::text = any(e."events"))
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
  q: Pick<pg.ClientBase, "query">,
  workspace: EventWorkspace,
  type: Exclude<EventType, "webhook.test" | "link.clicked">,
  data: unknown,
  at: Date = new Date(realTimeNow()),
): Promise<number[]> {
  if (!webhooksAllowed(planOf(workspace.plan))) return [];
  const id = newEventId();
  const { rows } = await q.query<{ id: number }>({
    name: "events_record",
    text: RECORD_EVENT,
    values: [id, workspace.id, type, at, serializeEnvelope(id, type, at, workspace, data)],
  });
  return rows.map((r) => r.id);
}
