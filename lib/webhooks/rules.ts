import { readFileSync } from "node:fs";
import path from "node:path";

// The delivery rules (docs/webhooks.md) in one place, as pure functions (unit-tested).

/** Attempts per event (7, about 21 hours in total with the default delays). */
export const MAX_ATTEMPTS = 7;
/** Events in a row that failed every attempt before an endpoint is switched off. */
export const DISABLE_AFTER_FAILED_EVENTS = 20;
/** The delivery log (events, deliveries, attempts) is kept this long. */
export const LOG_RETENTION_MS = 30 * 86_400_000;
/** Bytes of the receiver's answer that are read and kept. */
export const RESPONSE_BYTES_KEPT = 1024;

export { OUTCOME_TEXT, type AttemptOutcome } from "./outcomes.ts";
import type { AttemptOutcome } from "./outcomes.ts";
import { randomBase62 } from "../keys/random.ts";

/** What an HTTP status means for an attempt: only 2xx is delivered; 3xx is not followed. */
export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return "delivered";
  if (status >= 300 && status < 400) return "redirect";
  return "http_status";
}

/**
 * The wait before the next automatic attempt after automatic attempt `attemptNumber` (1-based)
 * failed, or null when that was the last one.
 */
export function retryDelayAfter(attemptNumber: number, delays: number[]): number | null {
  if (attemptNumber >= MAX_ATTEMPTS) return null;
  return delays[Math.min(attemptNumber - 1, delays.length - 1)] ?? null;
}

export type EndpointHealth = { consecutiveFailures: number; failingSince: Date | null };

/**
 * Why an endpoint must be switched off now, or null: 20 events in a row failed every attempt, or
 * it has been failing (nothing delivered) for at least `disableAfterMs`.
 */
export function disableReason(h: EndpointHealth, now: Date, disableAfterMs: number): string | null {
  if (h.consecutiveFailures >= DISABLE_AFTER_FAILED_EVENTS) {
    return `${h.consecutiveFailures} events in a row failed every attempt`;
  }
  if (h.failingSince && now.getTime() - h.failingSince.getTime() >= disableAfterMs) {
    return `failing with nothing delivered since ${h.failingSince.toISOString()} (${formatDuration(disableAfterMs)})`;
  }
  return null;
}

export function formatDuration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, "day"],
    [3_600_000, "hour"],
    [60_000, "minute"],
    [1000, "second"],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms / size === 1 ? "" : "s"}`;
  }
  return `${ms} ms`;
}

/** A signing secret: whsec_ + 48 base62 characters (docs/webhooks.md). */
export function newSigningSecret(): string {
  return "whsec_" + randomBase62(48);
}

let version: string | undefined;
function packageVersion(): string {
  if (version === undefined) {
    try {
      version = (JSON.parse(readFileSync(path.join(process.cwd(), "package.json"), "utf8")) as { version?: string }).version ?? "0.0.0";
    } catch {
      version = "0.0.0";
    }
  }
  return version;
}

/** User-Agent of deliveries: Linkhop-Webhooks/<version> (+<APP_URL>/docs/webhooks). */
export function userAgent(appUrl: string): string {
  return `Linkhop-Webhooks/${packageVersion()} (+${appUrl}/docs/webhooks)`;
}
