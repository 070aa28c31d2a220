import { config } from "../config/index.ts";
import { db, type Tx } from "../db/client.ts";
import { metrics } from "../metrics/index.ts";
import { dropPooledConnections, postPinned } from "../net/index.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { DEACTIVATED_CANCEL_REASON } from "../workspaces/writable.ts";
import { readSendable, recordDeliveredAttempt, SUCCESS_STAMP_MS } from "./attempt-batches.ts";
import { dueWhere } from "./due.ts";
import { checkWebhookUrl } from "./guard.ts";
import { notifyEndpointDisabledSoon } from "./notify.ts";
import { disableReason, outcomeOfStatus, RESPONSE_BYTES_KEPT, retryDelayAfter, userAgent, type AttemptOutcome } from "./rules.ts";
import type { Sendable } from "./sql.ts";
import { signatureHeader } from "./verify.ts";
import { log } from "../log/index.ts";

// One attempt of one delivery. Both schedulers (Inngest and the built-in one), the Test button,
// Resend and the admin CLI call only this, so every rule of sending lives here.

export type AttemptResult = {
  deliveryId: number;
  /** A request was made (or refused by the guard) and logged as an attempt. */
  attempted: boolean;
  outcome: AttemptOutcome | "cancelled" | "not_due" | "missing" | "internal_error";
  statusCode: number | null;
  delivered: boolean;
  /** No further automatic attempt will be made. */
  done: boolean;
  /** When not done: the wait before the next automatic attempt. */
  retryInMs: number | null;
  message: string | null;
};

export type AttemptOptions = {
  /** Resend (or Test): one attempt now, outside the schedule, never retried. */
  manual?: boolean;
  /** The built-in scheduler already claimed the delivery (lockedUntil set). */
  claimed?: boolean;
  /**
   * Waited for right before the request leaves, after the delivery was read and the address
   * checked: the endpoint's pacing (pacing.ts waitForSendSlot), so the database's and the DNS's
   * varying latency does not bunch requests at the receiver. Not called when the check refuses.
   */
  beforeSend?: () => Promise<void>;
  /** Called once the request is over (answered, failed or timed out), before its result is recorded. */
  afterSend?: () => void;
};

/**
 * Extra hold on a claimed delivery beyond the attempt's own timeout. It covers the wait in the
 * built-in scheduler's queue (scheduler.ts), reading the delivery, and RECORD_WITHIN_MS: the hold
 * must outlast the attempt's whole run, or another process could send the same attempt again.
 */
export const LOCK_MARGIN_MS = 30_000;
/**
 * Writing the result of an attempt that was made keeps trying this long (a busy pool, a deadlock
 * with an endpoint being switched off): a request already sent but not recorded would be sent
 * again as the same attempt once the hold expires. Plus one transaction's RECORD_TX_TIMEOUT_MS.
 */
export const RECORD_WITHIN_MS = 10_000;
const RECORD_TX_TIMEOUT_MS = 5000;
/** An automatic attempt may run this much before its nextAttemptAt (sleeps wake a little early). */
const DUE_SLACK_MS = 1000;

const result = (deliveryId: number, r: Partial<AttemptResult> & Pick<AttemptResult, "outcome" | "done">): AttemptResult => ({
  deliveryId,
  attempted: false,
  statusCode: null,
  delivered: false,
  retryInMs: null,
  message: null,
  ...r,
});

/** Never throws: an internal failure is reported as outcome internal_error and retried later. */
export async function attemptDelivery(deliveryId: number, opts: AttemptOptions = {}): Promise<AttemptResult> {
  try {
    return await attempt(deliveryId, opts);
  } catch (e) {
    log("webhooks").error({ deliveryId, err: e }, `delivery ${deliveryId}: attempt failed internally`);
    metrics().webhooks.attempts.inc({ outcome: "internal_error" });
    // The claim (if any) stays until it expires, which spaces out retries of an internal failure.
    return result(deliveryId, {
      outcome: "internal_error",
      done: false,
      retryInMs: config().WEBHOOK_TIMEOUT_MS + LOCK_MARGIN_MS,
      message: (e as Error)?.message ?? String(e),
    });
  }
}

/** Takes the delivery for one automatic attempt, unless it is not due, held elsewhere, or finished. */
async function claim(deliveryId: number, lockMs: number): Promise<AttemptResult | null> {
  const now = Date.now();
  const claimed = await db().delivery.updateMany({
    where: {
      id: deliveryId,
      ...dueWhere(new Date(now), DUE_SLACK_MS),
    },
    data: { lockedUntil: new Date(now + lockMs) },
  });
  if (claimed.count === 1) return null;
  const d = await db().delivery.findUnique({ where: { id: deliveryId }, select: { status: true, nextAttemptAt: true, lockedUntil: true } });
  if (!d) return result(deliveryId, { outcome: "missing", done: true, message: "No such delivery." });
  if (d.status !== "pending" || !d.nextAttemptAt)
    return result(deliveryId, { outcome: "not_due", done: true, message: `The delivery is ${d.status}.` });
  const until = Math.max(d.nextAttemptAt.getTime(), d.lockedUntil?.getTime() ?? 0);
  return result(deliveryId, {
    outcome: "not_due",
    done: false,
    retryInMs: Math.max(1000, until - now),
    message: "Not due yet, or held by another attempt.",
  });
}

async function attempt(deliveryId: number, opts: AttemptOptions): Promise<AttemptResult> {
  if (!opts.manual && !opts.claimed) {
    const notClaimed = await claim(deliveryId, config().WEBHOOK_TIMEOUT_MS + LOCK_MARGIN_MS);
    if (notClaimed) return notClaimed;
  }
  const loaded = await loadAndRecheck(deliveryId, opts);
  if (!("delivery" in loaded)) return loaded;
  const sent = await send(loaded.delivery, opts.beforeSend);
  opts.afterSend?.();
  metrics().webhooks.attempts.inc({ outcome: sent.outcome });
  metrics().webhooks.duration.observe(sent.durationMs / 1000);
  const { retryInMs, done, disabledBecause } =
    loaded.automatic && sent.delivered
      ? await recordAttempt(deliveryId, () => recordDelivered(loaded.delivery, sent))
      : await recordAttempt(deliveryId, (deadline) =>
          db().$transaction((tx) => recordResult(tx, loaded, sent, opts), {
            maxWait: Math.max(500, deadline - Date.now()),
            timeout: RECORD_TX_TIMEOUT_MS,
          }),
        );
  if (disabledBecause) notifyEndpointDisabledSoon(loaded.delivery.endpointId, disabledBecause);

  return result(deliveryId, {
    attempted: true,
    outcome: sent.outcome,
    statusCode: sent.statusCode,
    delivered: sent.delivered,
    done,
    retryInMs,
    message: sent.error,
  });
}

type Loaded = { delivery: Sendable; automatic: boolean };

/**
 * Reads the delivery with what sending needs, and checks again that it may be sent: a stopped
 * workspace, a disabled endpoint or a plan without webhooks cancels it (or refuses the resend).
 */
async function loadAndRecheck(deliveryId: number, opts: AttemptOptions): Promise<Loaded | AttemptResult> {
  const d = await readSendable(deliveryId);
  if (!d) return result(deliveryId, { outcome: "missing", done: true, message: "No such delivery (the endpoint was removed?)." });
  const automatic = !opts.manual && !d.isTest;
  const ep = d.endpoint;

  const stop = !ep.workspace.active
    ? DEACTIVATED_CANCEL_REASON
    : !ep.enabled
      ? "the endpoint is disabled"
      : !webhooksAllowed(planOf(ep.workspace.plan))
        ? "the workspace's plan does not include webhooks"
        : null;
  if (stop) {
    // A resend is refused without touching the delivery; scheduled work is cancelled for good.
    if (automatic || d.isTest) {
      await db().delivery.updateMany({
        where: { id: deliveryId, status: "pending" },
        data: { status: "cancelled", cancelReason: stop, nextAttemptAt: null, lockedUntil: null },
      });
    }
    return result(deliveryId, { outcome: "cancelled", done: true, message: `Not sent: ${stop}.` });
  }
  return { delivery: d, automatic };
}

type Sent = {
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
 * Sends: the guard again (addresses may have changed since the endpoint was saved), then a POST
 * pinned to the addresses just checked, signed with the secret as it is now.
 */
async function send(d: Sendable, beforeRequest?: () => Promise<void>): Promise<Sent> {
  const cfg = config();
  const ep = d.endpoint;
  const startedAt = new Date();
  let t0 = performance.now();
  let outcome: AttemptOutcome;
  let statusCode: number | null = null;
  let responseBody = "";
  let error: string | null = null;
  const guard = await checkWebhookUrl(ep.url, cfg.WEBHOOK_TIMEOUT_MS);
  if (!guard.ok) {
    outcome = guard.reason === "dns" ? "dns_error" : "address_refused";
    error = guard.message;
    // connections kept alive from before (when the name passed) are closed, never reused
    const host = URL.canParse(ep.url) ? new URL(ep.url).hostname : null;
    if (host) dropPooledConnections(host);
  } else {
    // the pacing's wait (beforeSend) comes after the check, so the request leaves at its slot
    // however long the lookup took; the wait is not part of the attempt's time or timeout
    const checkedMs = performance.now() - t0;
    if (beforeRequest) await beforeRequest();
    t0 = performance.now() - checkedMs;
    const remaining = Math.max(1, Math.round(cfg.WEBHOOK_TIMEOUT_MS - checkedMs));
    const timestamp = Math.floor(Date.now() / 1000);
    const r = await postPinned({
      url: guard.url,
      addresses: guard.addresses,
      headers: {
        "Content-Type": "application/json",
        "User-Agent": userAgent(cfg.APP_URL),
        "Service-Event": d.event.type,
        "Service-Delivery": d.event.id,
        "Service-Signature": signatureHeader(ep.secret, timestamp, d.event.body),
      },
      body: d.event.body,
      timeoutMs: remaining,
      maxResponseBytes: RESPONSE_BYTES_KEPT,
    });
    // PostgreSQL text cannot hold NUL: a receiver answering one must not make the attempt unrecordable
    responseBody = r.body.replaceAll("\u0000", "\uFFFD");
    statusCode = r.statusCode;
    if (r.outcome === "response" && r.statusCode !== null) {
      outcome = outcomeOfStatus(r.statusCode);
      if (outcome === "redirect")
        error = `HTTP ${r.statusCode} redirect${r.location ? ` to ${r.location}` : ""} (redirects are not followed)`;
      else if (outcome === "http_status") error = `HTTP ${r.statusCode}`;
    } else {
      outcome = r.outcome === "response" ? "error" : r.outcome;
      error = r.error;
    }
  }
  const durationMs = Math.round(performance.now() - t0);
  return { outcome, statusCode, responseBody, error, delivered: outcome === "delivered", startedAt, durationMs, now: new Date() };
}

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
async function recordResult(
  tx: Tx,
  { delivery: d, automatic }: Loaded,
  s: Sent,
  opts: AttemptOptions,
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
      manual: !!opts.manual,
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
async function recordAttempt<T>(deliveryId: number, write: (deadline: number) => Promise<T>): Promise<T> {
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
async function recordDelivered(d: Sendable, s: Sent): Promise<{ retryInMs: null; done: true; disabledBecause: null }> {
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
