import type { Inngest } from "inngest";
import type { AttemptResult } from "../../lib/webhooks/attempt.ts";
import { attemptInSlot, attemptPaced, WAKE_BEFORE_SLOT_MS, type SlotAhead } from "../../lib/webhooks/inngest-pacing.ts";
import type { SendSlot } from "../../lib/webhooks/pacing.ts";
import { DELIVERY_REQUESTED, inngestClient, type DeliveryRequested } from "../../lib/webhooks/inngest-client.ts";

// One delivery's retry schedule on Inngest: attempt, sleep, attempt, ... Every decision (whether to
// send, what counts as delivered, how long to wait, when to stop) is made by attemptDelivery, the
// same function the built-in scheduler runs; the attempt step never throws, so retries: 0.
// Each attempt keeps to the endpoint's delivery rate (lib/webhooks/inngest-pacing.ts): its step
// takes a send slot and, when the slot is near, waits for it before the request leaves; when the
// slot is far ahead (a backlog), the step returns it, the run sleeps until just before it, and a
// second step attempts in that slot. A replay gets the memoized slot back, never a second one.

/** Attempts per event are 7; a few more steps absorb attempts skipped as not yet due. */
const MAX_STEPS = 12;
/** In-flight attempts per endpoint across all runs. */
export const PER_ENDPOINT_CONCURRENCY = 8;

type Attempt = (deliveryId: number) => Promise<AttemptResult | SlotAhead>;
type AttemptAt = (deliveryId: number, slot: SendSlot) => Promise<AttemptResult>;

export function createDeliverWebhook(client: Inngest, attempt: Attempt = attemptPaced, attemptAt: AttemptAt = attemptInSlot) {
  return client.createFunction(
    {
      id: "deliver-webhook",
      name: "Deliver a webhook",
      triggers: [{ event: DELIVERY_REQUESTED }],
      retries: 0,
      idempotency: "event.data.deliveryId",
      concurrency: { key: "event.data.endpointId", limit: PER_ENDPOINT_CONCURRENCY },
    },
    async ({ event, step }) => {
      const { deliveryId } = event.data as DeliveryRequested;
      let last: AttemptResult | undefined;
      for (let n = 1; n <= MAX_STEPS; n++) {
        const paced = await step.run(`attempt-${n}`, () => attempt(deliveryId));
        if ("slotAhead" in paced) {
          const slot = paced.slotAhead;
          await step.sleepUntil(`slot-${n}`, new Date(slot.at - WAKE_BEFORE_SLOT_MS));
          last = await step.run(`attempt-${n}-in-slot`, () => attemptAt(deliveryId, slot));
        } else last = paced;
        if (last.done || last.retryInMs === null) break;
        await step.sleep(`wait-${n}`, last.retryInMs);
      }
      return last;
    },
  );
}

export const deliverWebhook = createDeliverWebhook(inngestClient());
