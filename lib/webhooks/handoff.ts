import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { inBackground } from "../background.ts";
import { peekShared, setShared } from "../registry.ts";
import { log } from "../log/index.ts";

// Handing new deliveries to whoever runs the schedule, right after the transaction that created
// them commits. With Inngest: one event per delivery (event id and the function's idempotency key
// are the delivery id, so a repeated hand-off starts no second run); handedOffAt records success,
// and the sweep hands off again what was never acknowledged (failed send, crash after commit).
// Built-in scheduler: a wake-up; the rows themselves are the queue, so nothing can be lost.

// The built-in scheduler is started by the runtime, in the custom server's module graph; the changes
// that create deliveries run in route handlers and server actions, in Next's own copy of every
// module: the wake-up is therefore kept in the process registry (lib/registry.ts).

/** Wakes the scheduler for new deliveries (of `endpointIds`, when known: scheduler.ts wake). */
export type SchedulerWake = (endpointIds?: readonly number[]) => void;

export function setSchedulerWake(wake: SchedulerWake | undefined) {
  setShared("scheduler-wake", wake);
}

/** lib/events' after-commit hand-off (events/index.ts AfterCommit): never throws, never blocks the caller. */
export function dispatchDeliveries(deliveryIds: number[], endpointIds?: readonly number[]): void {
  if (!deliveryIds.length) return;
  if (!config().inngestEnabled) {
    peekShared<SchedulerWake>("scheduler-wake")?.(endpointIds);
    return;
  }
  void inBackground(
    handOffToInngest(deliveryIds).catch((e) => log("webhooks").error({ err: e }, "hand-off to Inngest failed (the sweep retries)")),
  );
}

/** Sends one Inngest event per delivery and marks them handed off. Throws when Inngest refuses. */
export async function handOffToInngest(deliveryIds: number[]): Promise<number> {
  const rows = await db().delivery.findMany({
    where: { id: { in: deliveryIds }, status: "pending" },
    select: { id: true, endpointId: true },
  });
  if (!rows.length) return 0;
  // Loaded on first use: the SDK costs every process (the admin CLI too) a second or more to import.
  const { DELIVERY_REQUESTED, inngestClient } = await import("./inngest-client.ts");
  await inngestClient().send(
    rows.map((r) => ({ name: DELIVERY_REQUESTED, id: `delivery-${r.id}`, data: { deliveryId: r.id, endpointId: r.endpointId } })),
  );
  await db().delivery.updateMany({ where: { id: { in: rows.map((r) => r.id) } }, data: { handedOffAt: new Date() } });
  return rows.length;
}

/** Hands off again pending deliveries never acknowledged by Inngest and older than `olderThanMs`. */
export async function sweepUnhandedDeliveries(olderThanMs = 60_000, limit = 500): Promise<number> {
  const rows = await db().delivery.findMany({
    where: { status: "pending", isTest: false, handedOffAt: null, createdAt: { lt: new Date(Date.now() - olderThanMs) } },
    select: { id: true },
    orderBy: { id: "asc" },
    take: limit,
  });
  if (!rows.length) return 0;
  return handOffToInngest(rows.map((r) => r.id));
}
