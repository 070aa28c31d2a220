import { Inngest } from "inngest";
import { shared } from "../registry.ts";

// The Inngest client. Used only when Inngest is configured (INNGEST_EVENT_KEY, INNGEST_DEV or
// INNGEST_BASE_URL); the SDK reads those variables itself. Every request has a deadline: a server
// that accepts and never answers must not hang a hand-off (the sweep sends it again later).

export const SEND_TIMEOUT_MS = 5000;

const fetchWithTimeout: typeof fetch = (input, init) =>
  fetch(input, {
    ...init,
    signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(SEND_TIMEOUT_MS)]) : AbortSignal.timeout(SEND_TIMEOUT_MS),
  });

/** The client, made on first use: the SDK reads its environment variables when it is constructed. */
export function inngestClient(): Inngest {
  return shared("inngest", () => new Inngest({ id: "linkhop", fetch: fetchWithTimeout }));
}

/** The event that starts one delivery's run of the retry schedule. */
export const DELIVERY_REQUESTED = "linkhop/webhook.delivery.requested";
export type DeliveryRequested = { deliveryId: number; endpointId: number };
