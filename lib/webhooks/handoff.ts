import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { onDrain } from "../shutdown.ts";

// Handing new deliveries to whoever runs the schedule, right after the transaction that created
// them commits. With Inngest: one event per delivery (event id and the function's idempotency key
// are the delivery id, so a repeated hand-off starts no second run); handedOffAt records success,
// and the sweep hands off again what was never acknowledged (failed send, crash after commit).
// Built-in scheduler: a wake-up; the rows themselves are the queue, so nothing can be lost.

// The one cross-bundle registry of the hand-off. The built-in scheduler is started by server.ts
// (lib/jobs.ts), in the custom server's module graph; the changes that create deliveries run in
// route handlers and server actions, which Next compiles into its own bundle with its own copy of
// every module. A module-level variable set by one copy is invisible to the other, and the two
// share nothing but the process, so the wake-up (and the in-flight Inngest sends, which shutdown
// drains) live on globalThis.
const g = globalThis as { __linkhopSchedulerWake?: () => void; __linkhopHandoffs?: Set<Promise<unknown>> };
const handoffs = (g.__linkhopHandoffs ??= new Set());
let drainRegistered = false;

export function setSchedulerWake(wake: (() => void) | undefined) {
  g.__linkhopSchedulerWake = wake;
}

/** lib/events' after-commit hand-off (withEvents): never throws, never blocks the caller. */
export function dispatchDeliveries(deliveryIds: number[]): void {
  if (!deliveryIds.length) return;
  if (!config().inngestEnabled) {
    g.__linkhopSchedulerWake?.();
    return;
  }
  if (!drainRegistered) {
    drainRegistered = true;
    onDrain(() => Promise.allSettled([...handoffs]).then(() => undefined));
  }
  const p = handOffToInngest(deliveryIds)
    .catch((e) => console.error(`[webhooks] hand-off to Inngest failed (the sweep retries): ${(e as Error).message}`))
    .finally(() => handoffs.delete(p));
  handoffs.add(p);
}

/** Resolves when every hand-off started so far has finished (acknowledged, or failed and logged). */
export async function handoffsSettled(): Promise<void> {
  await Promise.allSettled([...handoffs]);
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
