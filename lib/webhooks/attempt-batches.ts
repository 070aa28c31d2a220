import { database } from "../db/client.ts";
import { shared } from "../registry.ts";
import { batched, type Batched } from "./batched.ts";
import { loadSendable, recordDeliveredAttempts, type DeliveredAttempt, type Sendable } from "./sql.ts";

// The process's two batched statements of the attempt path (batched.ts): attempts in flight at
// the same moment share one read of what they send and one write of their delivered results. They
// run on the Prisma pool's connections (lib/db/client.ts), where this work ran before. The built-in
// scheduler reads its claims' rows in one statement when it claims them (readSendables), so an
// attempt it starts soon after reads nothing itself (attempt.ts, AttemptOptions.prefetched).

/** lastSuccessAt of a healthy endpoint is refreshed at most this often. */
export const SUCCESS_STAMP_MS = 5000;

/**
 * Delivered results are written at most this often per process (batched.ts spacingMs): attempts
 * paced to an endpoint's rate end a few ms apart and would otherwise each pay a statement. The
 * endpoint's next request does not wait for it (its turn ends when the request does).
 */
export const RECORD_SPACING_MS = 20;

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
    recordDelivered: batched(
      async (attempts: (DeliveredAttempt & { now: Date })[]) => {
        // one "now" per statement: the latest attempt's end
        const now = new Date(Math.max(...attempts.map((a) => a.now.getTime())));
        const delivered = await recordDeliveredAttempts(database().prismaPool, attempts, now, SUCCESS_STAMP_MS);
        return attempts.map((a) => delivered.has(a.deliveryId));
      },
      100,
      RECORD_SPACING_MS,
    ),
  }));
}

/** What sending needs of several deliveries, read in one statement (by id; a delivery no longer there is absent). */
export async function readSendables(deliveryIds: number[]): Promise<Map<number, Sendable>> {
  if (!deliveryIds.length) return new Map();
  const rows = await loadSendable(database().prismaPool, deliveryIds);
  return new Map(rows.map((r) => [r.id, r]));
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
