// "Now" for the app's calendar decisions made in JavaScript: which UTC month a new link counts
// against (monthOf: lib/links/allowance.ts) and which month the usage pages show; also when a password
// reset link expires (lib/auth/password-reset.ts). One clock, so tests can control it instead of
// racing a real month end or waiting an hour:
// - in-process, setClock(() => date) (and setClock(null) to go back to real time);
// - for a started app, LINKHOP_CLOCK_START=<ISO 8601 instant>: the clock reads that instant the
//   first time it is asked and then runs at real speed (a testing aid; leave it unset).
// Time kept by PostgreSQL (now() in SQL: rate-limit windows, delivery schedules) is not affected.

let started: { start: string | undefined; offsetMs: number } | null = null;
let source: (() => Date | number) | null = null;

function offsetMs(): number {
  const start = process.env.LINKHOP_CLOCK_START;
  if (started && started.start === start) return started.offsetMs;
  let offset = 0;
  if (start) {
    const at = Date.parse(start);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(start) || Number.isNaN(at)) {
      throw new Error(`LINKHOP_CLOCK_START must be an ISO 8601 instant such as 2026-06-15T12:00:00Z, not ${JSON.stringify(start)}`);
    }
    offset = at - Date.now();
  }
  started = { start, offsetMs: offset };
  return offset;
}

/** The current instant on the app's calendar clock. */
export function now(): Date {
  return source ? new Date(source()) : new Date(Date.now() + offsetMs());
}

/**
 * The current instant in real time, in ms: what click events are stamped with, so analytics ranges
 * ("the last 7 days", the latest end a range may have) are measured on it, and the createdAt of
 * webhook events (lib/events), which receivers order events by. setClock replaces it
 * in-process like now(); LINKHOP_CLOCK_START does not shift it (it moves the calendar only, and
 * the events of a started app are stamped in real time).
 */
export function realTimeNow(): number {
  return source ? new Date(source()).getTime() : Date.now();
}

/** "YYYY-MM" of the calendar month (UTC); by default the current one on this clock. */
export function monthOf(at: Date = now()): string {
  return at.toISOString().slice(0, 7);
}

/** Replaces the clock in this process (tests); `null` restores the default. */
export function setClock(fn: (() => Date | number) | null): void {
  source = fn;
}
