import type { Prisma } from "../db/generated/client.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { inClickScope, type ClickScopeColumns, type ScopedLink } from "./click-scope.ts";

// The one rule of which endpoints receive an event, in the three forms its writers need: a Prisma
// filter (recordEvent, index.ts), a SQL condition (recordEventSql and the click flush's
// clickSubscribers, sql.ts) and a plain predicate. They are kept side by side so they change
// together; tests/integration/events-subscription.test.ts checks that all three agree.
//
// An endpoint receives an event when: it is enabled; its workspace is active and on a plan with
// webhooks (plans live in code, lib/plans, so every form checks the plan in JS); it selected the
// type, by name or by "all events" (which leaves out the types received by name only); and, for
// link.clicked, the clicked link is in its click scope (click-scope.ts: in JS, or in SQL where the cursor reader reads). webhook.test
// is never received by subscription: it goes to one endpoint on request (recordTestEvent).

export const EVENT_TYPES = [
  "link.created",
  "link.updated",
  "link.deleted",
  "link.bulk_created",
  "domain.verified",
  "member.joined",
  "webhook.test",
  "link.clicked",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Types an endpoint can select (webhook.test goes to one endpoint on request only). */
export const SELECTABLE_EVENT_TYPES = EVENT_TYPES.filter((t): t is SelectableEventType => t !== "webhook.test");
export type SelectableEventType = Exclude<EventType, "webhook.test">;
/**
 * Types an endpoint receives only when it names them: "all events" leaves them out (link.clicked: a
 * click's volume is not something to receive by accident). Their events are written by the click
 * cursor reader (lib/clicks/clicked.ts, through sql.ts), never by recordEvent.
 */
export const BY_NAME_ONLY_EVENT_TYPES: readonly EventType[] = ["link.clicked"];

/** Whether a workspace's plan sends events at all. */
export function planSendsEvents(plan: string): boolean {
  return webhooksAllowed(planOf(plan));
}

/** What of an endpoint and its workspace the rule reads. */
export type Subscriber = ClickScopeColumns & {
  enabled: boolean;
  allEvents: boolean;
  events: string[];
  workspace: { active: boolean; plan: string };
};

/** The rule as a predicate; `link` (the clicked link as it is now) is needed for link.clicked only. */
export function receives(e: Subscriber, type: SelectableEventType, link?: ScopedLink): boolean {
  return (
    e.enabled &&
    e.workspace.active &&
    planSendsEvents(e.workspace.plan) &&
    (e.events.includes(type) || (e.allEvents && !BY_NAME_ONLY_EVENT_TYPES.includes(type))) &&
    (type !== "link.clicked" || (link !== undefined && inClickScope(e, link)))
  );
}

/** The rule but the plan and the click scope, as a Prisma filter on one workspace's WebhookEndpoint rows. */
export function subscribedWhere(workspaceId: number, type: SelectableEventType): Prisma.WebhookEndpointWhereInput {
  return {
    workspaceId,
    enabled: true,
    workspace: { active: true },
    OR: BY_NAME_ONLY_EVENT_TYPES.includes(type) ? [{ events: { has: type } }] : [{ allEvents: true }, { events: { has: type } }],
  };
}

const BY_NAME_ONLY_SQL = `array[${BY_NAME_ONLY_EVENT_TYPES.map((t) => `'${t}'`).join(", ")}]::text[]`;

/**
 * The rule but the plan and the click scope, as a condition on "WebhookEndpoint" `e` joined with its
 * "Workspace" `w`; `type` is the SQL text of the event type (a parameter such as `$3::text`, or a literal).
 */
export function subscribedCondition(type: string): string {
  return `e."enabled" and w."active" and (${type} = any(e."events") or (e."allEvents" and ${type} <> all(${BY_NAME_ONLY_SQL})))`;
}
