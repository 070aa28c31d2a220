import { config } from "../config/index.ts";
import type { Tx } from "../db/client.ts";
import { log } from "../log/index.ts";
import { recordDeliveredAttempt, SUCCESS_STAMP_MS } from "./attempt-batches.ts";
import { disableReason, retryDelayAfter, type AttemptOutcome } from "./rules.ts";
import type { Sendable } from "./sql.ts";

// Recording a made attempt (attempt.ts attemptDelivery): its log row, the delivery's new state and
// the endpoint's health, with the disabling rules; a delivered automatic attempt goes through the
// batched statement instead (attempt-batches.ts).

/**
 * Writing the result of an attempt that was made keeps trying this long (a busy pool, a deadlock
 * with an endpoint being switched off): a request already sent but not recorded would be sent
 * again as the same attempt once the hold expires. Plus one transaction's RECORD_TX_TIMEOUT_MS
 * (attempt.ts). The claim's hold (attempt.ts LOCK_MARGIN_MS) covers both.
 */
export const RECORD_WITHIN_MS = 10_000;

/** A delivery as read for an attempt, and whether the attempt is an automatic (scheduled) one. */
export type Loaded = { delivery: Sendable; automatic: boolean };

/** What sending made of the attempt. */
export type Sent = {
  outcome: AttemptOutcome;
  statusCode: number | null;
  responseBody: string;
  error: string | null;
  delivered: boolean;
  startedAt: Date;
  durationMs: number;
  /** When the attempt ended. */
  now: Date;
};

/**
 * After automatic attempt number `attemptNumber`: the wait before the next one (null when none
 * follows) and the delivery's status meanwhile.
 */
function nextAttempt(
  attemptNumber: number,
  delivered: boolean,
  retryDelays: number[],
): { retryInMs: number | null; status: "delivered" | "failed" | "pending" } {
  const retryInMs = delivered ? null : retryDelayAfter(attemptNumber, retryDelays);
  return { retryInMs, status: delivered ? "delivered" : retryInMs === null ? "failed" : "pending" };
}

/** One transaction: the attempt's log row, the delivery's new state, the endpoint's health. */
export async function recordResult(
  tx: Tx,
  { delivery: d, automatic }: Loaded,
  s: Sent,
  manual: boolean,
): Promise<{ retryInMs: number | null; done: boolean; disabledBecause: string | null }> {
  const deliveryId = d.id;
  const { delivered, now } = s;
  let retryInMs: number | null = null;
  let done = true;
  const number = d.attemptCount + 1;
  await tx.deliveryAttempt.create({
    data: {
      deliveryId,
      number,
      manual,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      statusCode: s.statusCode,
      outcome: s.outcome,
      error: s.error,
      responseBody: s.responseBody,
    },
  });
  let exhausted = false;
  if (d.isTest) {
    await tx.delivery.update({
      where: { id: deliveryId },
      data: { attempts: { increment: 1 }, status: delivered ? "delivered" : "failed", nextAttemptAt: null, lockedUntil: null },
    });
  } else if (automatic) {
    const attemptNumber = d.attempts + 1;
    const next = nextAttempt(attemptNumber, delivered, config().WEBHOOK_RETRY_DELAYS);
    retryInMs = next.retryInMs;
    // Only while still pending: a resend may have delivered it, or a disable cancelled it.
    const u = await tx.delivery.updateMany({
      where: { id: deliveryId, status: "pending" },
      data: {
        attempts: attemptNumber,
        status: next.status,
        nextAttemptAt: retryInMs === null ? null : new Date(now.getTime() + retryInMs),
        lockedUntil: null,
      },
    });
    exhausted = u.count === 1 && next.status === "failed";
    done = retryInMs === null || u.count === 0;
    if (done) retryInMs = null;
  } else if (delivered) {
    await tx.delivery.update({ where: { id: deliveryId }, data: { status: "delivered", nextAttemptAt: null, cancelReason: null } });
  }
  // A test leaves the failure state alone (it is not an event the endpoint missed), but one that
  // got through shows the endpoint's "Last delivered" at once.
  if (d.isTest && delivered) await tx.webhookEndpoint.update({ where: { id: d.endpointId }, data: { lastSuccessAt: now } });
  const disabledBecause = d.isTest ? null : await updateEndpointHealth(tx, d.endpointId, { delivered, exhausted, at: s.startedAt, now });
  // Switching the endpoint off cancelled this delivery's remaining attempts too.
  if (disabledBecause) return { retryInMs: null, done: true, disabledBecause };
  return { retryInMs, done, disabledBecause };
}

/**
 * Runs the write that records a made attempt, again after a failure, until RECORD_WITHIN_MS has
 * passed. `write` gets the deadline: a transaction may wait for a connection until then (Prisma's
 * default is 2 s, which a loaded process with 64 attempts in flight on a pool of 10 exceeds).
 */
export async function recordAttempt<T>(deliveryId: number, write: (deadline: number) => Promise<T>): Promise<T> {
  const deadline = Date.now() + RECORD_WITHIN_MS;
  for (let tries = 1; ; tries++) {
    try {
      return await write(deadline);
    } catch (e) {
      const pause = Math.min(200 * 2 ** (tries - 1), 2000);
      if (Date.now() + pause >= deadline) throw e;
      log("webhooks").warn({ deliveryId, tries, err: e }, `delivery ${deliveryId}: recording attempt failed (try ${tries}), trying again`);
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/**
 * A delivered automatic attempt (the engine's common case), through the batched statement
 * (attempt-batches.ts): the same rows and effects as recordResult writes for it.
 */
export async function recordDelivered(d: Sendable, s: Sent): Promise<{ retryInMs: null; done: true; disabledBecause: null }> {
  await recordDeliveredAttempt(
    {
      deliveryId: d.id,
      endpointId: d.endpointId,
      number: d.attemptCount + 1,
      attempts: d.attempts + 1,
      startedAt: s.startedAt,
      durationMs: s.durationMs,
      statusCode: s.statusCode ?? 200,
      responseBody: s.responseBody,
    },
    s.now,
  );
  return { retryInMs: null, done: true, disabledBecause: null };
}

/**
 * Records an attempt's effect on its endpoint: a delivery clears the failure state; a failure
 * starts the failing period, and an event that failed every attempt counts towards the 20.
 * Disables the endpoint (once) when a rule says so, cancelling its pending deliveries; returns
 * the reason when this call disabled it.
 */
async function updateEndpointHealth(
  tx: Tx,
  endpointId: number,
  a: { delivered: boolean; exhausted: boolean; at: Date; now: Date },
): Promise<string | null> {
  if (a.delivered) {
    // Skips the write (and the row lock that would serialize the endpoint's parallel attempts)
    // when the endpoint is healthy and its last success was recorded moments ago.
    await tx.webhookEndpoint.updateMany({
      where: {
        id: endpointId,
        OR: [
          { consecutiveFailures: { gt: 0 } },
          { failingSince: { not: null } },
          { lastSuccessAt: null },
          { lastSuccessAt: { lt: new Date(a.now.getTime() - SUCCESS_STAMP_MS) } },
        ],
      },
      data: { consecutiveFailures: 0, failingSince: null, lastSuccessAt: a.now },
    });
    return null;
  }
  await tx.webhookEndpoint.updateMany({ where: { id: endpointId, failingSince: null }, data: { failingSince: a.at } });
  const ep = a.exhausted
    ? await tx.webhookEndpoint.update({ where: { id: endpointId }, data: { consecutiveFailures: { increment: 1 } } })
    : await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
  if (!ep.enabled) return null;
  const reason = disableReason(ep, a.now, config().WEBHOOK_DISABLE_AFTER);
  if (!reason) return null;
  const off = await tx.webhookEndpoint.updateMany({
    where: { id: endpointId, enabled: true },
    data: { enabled: false, disabledAt: a.now, disabledReason: reason },
  });
  if (off.count === 0) return null;
  await tx.delivery.updateMany({
    where: { endpointId, status: "pending" },
    data: { status: "cancelled", cancelReason: `the endpoint was disabled: ${reason}`, nextAttemptAt: null, lockedUntil: null },
  });
  log("webhooks").warn({ endpointId, reason }, `endpoint ${endpointId} disabled: ${reason}`);
  return reason;
}
