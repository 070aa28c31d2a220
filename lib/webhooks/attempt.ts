import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { metrics } from "../metrics/index.ts";
import { dropPooledConnections, postPinned } from "../net/index.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { DEACTIVATED_CANCEL_REASON } from "../workspaces/writable.ts";
import { readSendable } from "./attempt-batches.ts";
import { recordAttempt, recordDelivered, recordResult, type Loaded, type Sent } from "./record-attempt.ts";
import { DUE_SLACK_MS, dueWhere } from "./due.ts";
import { checkWebhookUrl } from "./guard.ts";
import { notifyEndpointDisabledSoon } from "./notify.ts";
import { outcomeOfStatus, RESPONSE_BYTES_KEPT, userAgent, type AttemptOutcome } from "./rules.ts";
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
  /**
   * The delivery as the built-in scheduler read it with its claim (scheduler.ts): used instead of a
   * read of its own when read at most PREFETCH_FRESH_MS ago, so the checks below are that recent.
   */
  prefetched?: Prefetched;
};

/** Deliveries read in one statement at `at` (ms), by id (attempt-batches.ts readSendables). */
export type Prefetched = { at: number; rows: Promise<Map<number, Sendable>> };

/**
 * How old a prefetched read may be when its attempt starts. The endpoint's state, the workspace's
 * and the secret are then at most this old when the request leaves (plus the pacing's wait, which
 * follows a fresh read as well); older, the attempt reads again.
 */
export const PREFETCH_FRESH_MS = 1000;

/**
 * Extra hold on a claimed delivery beyond the attempt's own timeout. It covers the wait in the
 * built-in scheduler's queue (scheduler.ts), reading the delivery, and RECORD_WITHIN_MS
 * (record-attempt.ts): the hold
 * must outlast the attempt's whole run, or another process could send the same attempt again.
 */
export const LOCK_MARGIN_MS = 30_000;
const RECORD_TX_TIMEOUT_MS = 5000;

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
          db().$transaction((tx) => recordResult(tx, loaded, sent, !!opts.manual), {
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

/**
 * Reads the delivery with what sending needs, and checks again that it may be sent: a stopped
 * workspace, a disabled endpoint or a plan without webhooks cancels it (or refuses the resend).
 */
async function loadAndRecheck(deliveryId: number, opts: AttemptOptions): Promise<Loaded | AttemptResult> {
  const d = await sendableOf(deliveryId, opts.prefetched);
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

/** The delivery from a fresh prefetched read when there is one (a failed one is read again), else read now. */
async function sendableOf(deliveryId: number, prefetched: Prefetched | undefined): Promise<Sendable | null> {
  if (prefetched && Date.now() - prefetched.at <= PREFETCH_FRESH_MS) {
    const rows = await prefetched.rows.catch(() => null);
    if (rows) return rows.get(deliveryId) ?? null;
  }
  return readSendable(deliveryId);
}

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
