// Webhooks: endpoints, signing, the address guard, delivery attempts, the schedulers and the log.
// lib/events hands new deliveries to dispatchDeliveries (handoff.ts) after each commit.

export { attemptDelivery, type AttemptResult, type AttemptOptions } from "./attempt.ts";
export {
  createEndpoint,
  updateEndpoint,
  setEndpointEnabled,
  deleteEndpoint,
  listEndpoints,
  getEndpoint,
  revealSecret,
  replaceSecret,
  parseEventList,
  eventSelectionSchema,
  type EndpointView,
  type EventSelection,
} from "./endpoints.ts";
export { sendTestEvent, resendDelivery, TEST_MESSAGE, TEST_TYPES, type TestType } from "./manual.ts";
export { deliveryLog, logFilterSchema, DELIVERY_STATUSES, type LogDelivery, type LogAttempt, type LogFilter } from "./log.ts";
export { claimDueDeliveries, startBuiltInScheduler } from "./scheduler.ts";
export { dispatchDeliveries, handOffToInngest, sweepUnhandedDeliveries } from "./handoff.ts";
export { pruneDeliveryLog } from "./retention.ts";
export { endpointUrlHint } from "./guard.ts";
export { endpointBacklogs, type ClickBacklog, type EndpointBacklog } from "./backlog.ts";
export { startWebhookJobs } from "./jobs.ts";
export { verifyWebhookSignature, signatureHeader, computeSignature } from "./verify.ts";
export { MAX_ATTEMPTS, OUTCOME_TEXT, userAgent, type AttemptOutcome } from "./rules.ts";
