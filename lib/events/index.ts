import { pooledRandomBytes } from "../keys/random.ts";
import { realTimeNow } from "../clock.ts";
import { db, type Tx } from "../db/client.ts";
import { peekShared, setShared } from "../registry.ts";
import { log } from "../log/index.ts";
import { planSendsEvents, subscribedWhere, type EventType } from "./subscription.ts";

// Events are written in the same transaction as the change that caused them: the envelope is
// serialized once (these bytes are what every attempt and resend sends) and one Delivery row is
// inserted per endpoint that receives it (the subscription rule, subscription.ts: a deactivated
// workspace emits nothing). The event and delivery rows are written here and in sql.ts only: this
// file's Prisma form, and sql.ts's forms for a raw `pg` transaction and for the click flush.
// After commit, the new delivery ids go to the process's after-commit hook, which the runtime sets to
// the webhooks' hand-off (lib/runtime.ts); events know nothing of webhooks beyond their rows. If that
// hand-off is lost (crash, or no runtime in this process), the rows are still pending and the
// scheduler (or the Inngest sweep) sends them.

export { BY_NAME_ONLY_EVENT_TYPES, EVENT_TYPES, SELECTABLE_EVENT_TYPES, type EventType, type SelectableEventType } from "./subscription.ts";

export type EventWorkspace = { id: number; slug: string; name: string; plan: string };

/**
 * An event id, "evt_" + 32 lowercase hex: the instant the event stands for in ms (12 hex digits,
 * so ids of later events sort after) then `rest` (20 hex). Time order keeps WebhookEvent's primary
 * key and Delivery's (eventId, endpointId) index growing at their right edge: a random id wrote each
 * event into a random page of both, which after every checkpoint costs PostgreSQL a full-page image
 * per page touched (docs/benchmarks.md, "Event ids"). The time is the envelope's createdAt's, which
 * the receiver sees anyway.
 */
export function eventIdAt(at: number, rest: string): string {
  return "evt_" + Math.max(0, Math.floor(at)).toString(16).padStart(12, "0").slice(-12) + rest;
}

/** A new event id (eventIdAt) with 80 random bits (lib/keys/random.ts pooledRandomBytes): unique, not secret. */
export function newEventId(at: number = realTimeNow()): string {
  return eventIdAt(at, pooledRandomBytes(10).toString("hex"));
}

/** The envelope's bytes; `createdAt` is a Date, or what stands in for one (a hole: lib/events/sql.ts eventWithHoles). */
export function serializeEnvelope(
  id: string,
  type: string,
  createdAt: Pick<Date, "toISOString">,
  workspace: EventWorkspace,
  data: unknown,
): string {
  return JSON.stringify({ id, type, createdAt: createdAt.toISOString(), workspace: { id: workspace.slug, name: workspace.name }, data });
}

export type Emit = (workspace: EventWorkspace, type: EventType, data: unknown, at?: Date) => Promise<void>;

/**
 * Writes the event and its deliveries inside `tx`; returns the new delivery ids. `at` (the
 * envelope's createdAt, receivers order events by it) is when the change happened: by default now,
 * in the change's transaction, on the injectable clock (lib/clock.ts realTimeNow).
 */
export async function recordEvent(
  tx: Tx,
  workspace: EventWorkspace,
  type: EventType,
  data: unknown,
  at: Date = new Date(realTimeNow()),
): Promise<number[]> {
  // webhook.test goes to one endpoint on request (lib/webhooks sendTestEvent), never by selection.
  if (type === "webhook.test") throw new Error("webhook.test is sent with sendTestEvent, not recorded as an event");
  if (type === "link.clicked") throw new Error("link.clicked is recorded by the click flush, not by recordEvent");
  if (!planSendsEvents(workspace.plan)) return [];
  const endpoints = await tx.webhookEndpoint.findMany({ where: subscribedWhere(workspace.id, type), select: { id: true } });
  if (endpoints.length === 0) return [];
  const id = newEventId();
  await tx.webhookEvent.create({
    data: { id, workspaceId: workspace.id, type, createdAt: at, body: serializeEnvelope(id, type, at, workspace, data) },
  });
  const rows = await tx.delivery.createManyAndReturn({
    data: endpoints.map((e) => ({ eventId: id, endpointId: e.id, nextAttemptAt: at })),
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

/**
 * Writes a test event (webhook.test, or a sample of another type) and its one delivery to the
 * endpoint the Test button names (lib/webhooks/manual.ts), inside `tx`: no subscription, never
 * attempted automatically (isTest, no next attempt), so nothing is handed off. Returns the delivery id.
 */
export async function recordTestEvent(
  tx: Tx,
  workspace: EventWorkspace,
  endpointId: number,
  event: { id: string; type: EventType; at: Date; data: unknown },
): Promise<number> {
  const { id, type, at, data } = event;
  await tx.webhookEvent.create({
    data: { id, workspaceId: workspace.id, type, createdAt: at, body: serializeEnvelope(id, type, at, workspace, data) },
  });
  const delivery = await tx.delivery.create({ data: { eventId: id, endpointId, isTest: true, nextAttemptAt: null }, select: { id: true } });
  return delivery.id;
}

/**
 * What happens to new deliveries once their transaction has committed. `endpointIds`: the endpoints
 * they go to, when the writer has them at hand (the single create, the link.clicked reader): the
 * built-in scheduler then makes no claim for endpoints it already holds enough of (scheduler.ts wake).
 */
export type AfterCommit = (deliveryIds: number[], endpointIds?: readonly number[]) => void;

/** Sets what every withEvents does after commit (the runtime: the webhooks' hand-off). */
export function setAfterCommit(hook: AfterCommit | undefined): void {
  setShared("after-commit", hook);
}

/** Runs the after-commit hand-off; a failure is logged, never thrown at the caller whose change is committed. */
function handOff(deliveryIds: number[], afterCommit: AfterCommit, endpointIds?: readonly number[]) {
  if (!deliveryIds.length) return;
  try {
    afterCommit(deliveryIds, endpointIds);
  } catch (e) {
    log("events").error({ err: e }, "webhook hand-off failed; the scheduler's sweep will pick these up");
  }
}

/**
 * The after-commit hand-off of a transaction that recorded events without withEvents: the raw `pg`
 * forms of sql.ts (the API's single create, the click flush's own transaction).
 */
export function handOffAfterCommit(deliveryIds: number[], endpointIds?: readonly number[]): void {
  const hook = peekShared<AfterCommit>("after-commit");
  if (hook) handOff(deliveryIds, hook, endpointIds);
}

/**
 * One transaction for one use case, with an `emit` that records events in it; deliveries are
 * handed off after commit only, so a rolled-back change sends nothing.
 */
export async function withEvents<T>(
  fn: (tx: Tx, emit: Emit) => Promise<T>,
  options?: { timeout?: number; afterCommit?: AfterCommit },
): Promise<T> {
  const deliveries: number[] = [];
  const result = await db().$transaction(
    async (tx) => {
      deliveries.length = 0; // a retried transaction starts over
      const emit: Emit = async (ws, type, data, at) => {
        deliveries.push(...(await recordEvent(tx, ws, type, data, at)));
      };
      return fn(tx, emit);
    },
    { timeout: options?.timeout ?? 15_000, maxWait: 10_000 },
  );
  const hook = options?.afterCommit ?? peekShared<AfterCommit>("after-commit");
  if (hook) handOff(deliveries, hook);
  return result;
}
