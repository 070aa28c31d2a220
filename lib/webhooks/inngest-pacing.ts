import { db } from "../db/client.ts";
import { attemptDelivery, type AttemptResult } from "./attempt.ts";
import { DUE_SLACK_MS, isDue } from "./due.ts";
import { takeSendSlots, waitForSendSlot, type SendSlot } from "./pacing.ts";

// The per-endpoint delivery rate on Inngest (inngest/functions/deliver-webhook.ts). Every automatic
// attempt takes one send slot from the endpoint's row, the same slots the built-in scheduler takes
// (pacing.ts), so the slots of both engines, in any number of processes, add up to the plan's rate;
// the request does not leave before its slot, and this process's requests to an endpoint leave at
// least one slot interval apart (waitForSendSlot). A slot more than WAIT_IN_STEP_MS ahead (a
// backlog) is not waited for inside a step: the step returns it, and the function sleeps to it with
// step.sleepUntil, so a backlog holds no run busy. Inngest memoizes a step's result, so a replay
// gets the same slot back instead of taking another one. Resend and Test call attemptDelivery
// directly: never paced.

/** A slot at most this far ahead is waited for inside the step; a later one is slept to. */
export const WAIT_IN_STEP_MS = 1000;
/**
 * A run sleeping to its slot wakes this much before it: claiming and reading the delivery are done
 * by then, and the request leaves at its slot rather than that much after it.
 */
export const WAKE_BEFORE_SLOT_MS = 250;

/** The step's slot, too far ahead to wait for inside the step. */
export type SlotAhead = { slotAhead: SendSlot };

/**
 * One automatic attempt under the endpoint's rate: takes a send slot when the delivery is due (one
 * that is not due, held by another run or finished takes none: attemptDelivery reports it without
 * sending), then either attempts, waiting for the slot right before the request leaves, or, when
 * the slot is far ahead, returns it for attemptInSlot after the function's sleep.
 */
export async function attemptPaced(deliveryId: number): Promise<AttemptResult | SlotAhead> {
  const slot = await takeSlot(deliveryId, true);
  if (slot && slot.at - Date.now() > WAIT_IN_STEP_MS) return { slotAhead: slot };
  return attemptInSlot(deliveryId, slot);
}

/**
 * The attempt in a slot already taken (null: none was, since the delivery did not look due). If the
 * delivery became due in between and the claim succeeds after all, a slot is taken right before
 * sending and waited for: no automatic request leaves without one.
 */
export function attemptInSlot(deliveryId: number, slot: SendSlot | null): Promise<AttemptResult> {
  return attemptDelivery(deliveryId, {
    beforeSend: async () => {
      const mine = slot ?? (await takeSlot(deliveryId, false));
      if (mine) await waitForSendSlot(mine);
    },
  });
}

/** The next send slot of the delivery's endpoint; with `onlyIfDue`, none for a delivery not due. */
async function takeSlot(deliveryId: number, onlyIfDue: boolean): Promise<SendSlot | null> {
  const d = await db().delivery.findUnique({
    where: { id: deliveryId },
    select: { endpointId: true, status: true, isTest: true, nextAttemptAt: true, lockedUntil: true },
  });
  if (!d || (onlyIfDue && !isDue(d, new Date(), DUE_SLACK_MS))) return null;
  const s = (await takeSendSlots(new Map([[d.endpointId, 1]]))).get(d.endpointId);
  return s ? { endpointId: d.endpointId, at: s.firstAt, intervalMs: s.intervalMs } : null;
}
