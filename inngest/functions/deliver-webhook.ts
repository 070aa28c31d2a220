import type { Inngest } from "inngest";
import { attemptDelivery, type AttemptResult } from "../../lib/webhooks/attempt.ts";
import { DELIVERY_REQUESTED, inngestClient, type DeliveryRequested } from "../../lib/webhooks/inngest-client.ts";

// One delivery's retry schedule on Inngest: attempt, sleep, attempt, ... Every decision (whether to
// send, what counts as delivered, how long to wait, when to stop) is made by attemptDelivery, the
// same function the built-in scheduler runs; the attempt step never throws, so retries: 0.

/** Attempts per event are 7; a few more steps absorb attempts skipped as not yet due. */
const MAX_STEPS = 12;
/** In-flight attempts per endpoint across all runs. */
export const PER_ENDPOINT_CONCURRENCY = 8;

type Attempt = (deliveryId: number) => Promise<AttemptResult>;

export function createDeliverWebhook(client: Inngest, attempt: Attempt = (id) => attemptDelivery(id)) {
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
        last = await step.run(`attempt-${n}`, () => attempt(deliveryId));
        if (last.done || last.retryInMs === null) break;
        await step.sleep(`wait-${n}`, last.retryInMs);
      }
      return last;
    },
  );
}

export const deliverWebhook = createDeliverWebhook(inngestClient());
