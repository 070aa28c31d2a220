import { database } from "../db/client.ts";
import { shared } from "../registry.ts";
import { batched, type Batched } from "./batched.ts";
import { loadSendable, recordDeliveredAttempts, type DeliveredAttempt, type Sendable } from "./sql.ts";

// The process's two batched statements of the attempt path (batched.ts): attempts in flight at
// the same moment share one read of what they send and one write of their delivered results. They
// run on the Prisma pool's connections (lib/db/client.ts), where this work ran before.

/** lastSuccessAt of a healthy endpoint is refreshed at most this often. */
export const SUCCESS_STAMP_MS = 5000;

type AttemptBatches = {
  read: Batched<number, Sendable | null>;
  recordDelivered: Batched<DeliveredAttempt & { now: Date }, boolean>;
};

function attemptBatches(): AttemptBatches {
  return shared("webhook-attempt-batches", () => ({
    read: batched(async (ids: number[]) => {
      const rows = await loadSendable(database().prismaPool, ids);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    recordDelivered: batched(async (attempts: (DeliveredAttempt & { now: Date })[]) => {
      // one "now" per statement: the latest attempt's end
      const now = new Date(Math.max(...attempts.map((a) => a.now.getTime())));
      const delivered = await recordDeliveredAttempts(database().prismaPool, attempts, now, SUCCESS_STAMP_MS);
      return attempts.map((a) => delivered.has(a.deliveryId));
    }),
  }));
}

/** The delivery with what sending it needs, or null when it no longer exists. */
export function readSendable(deliveryId: number): Promise<Sendable | null> {
  return attemptBatches().read(deliveryId);
}

/**
 * Records a delivered automatic attempt; true when it made the delivery delivered, false when the
 * delivery was no longer pending (a resend delivered it, a disable cancelled it).
 */
export function recordDeliveredAttempt(a: DeliveredAttempt, now: Date): Promise<boolean> {
  return attemptBatches().recordDelivered({ ...a, now });
}
