// The one way the app writes dates: "Nov 25, 2026" and "Nov 25, 2026, 14:05 UTC". Always in UTC,
// so a page rendered on the server and the same page rendered in a browser agree, and the time
// zone is said wherever a time of day is shown. Numbers are milliseconds since the epoch.

type DateInput = Date | string | number;

const DATE = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
const TIME = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
} as const;
const DATE_TIME = new Intl.DateTimeFormat("en-US", TIME);
const DATE_TIME_SECONDS = new Intl.DateTimeFormat("en-US", { ...TIME, second: "2-digit" });

function toDate(value: DateInput): Date | null {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** "Nov 25, 2026"; "—" for no date. */
export function formatDate(value: DateInput | null | undefined): string {
  const d = value === null || value === undefined ? null : toDate(value);
  return d ? DATE.format(d) : "—";
}

/** "Nov 25, 2026, 14:05 UTC" ("14:05:09" with seconds, for logs); "—" for no date. */
export function formatDateTime(value: DateInput | null | undefined, opts: { seconds?: boolean } = {}): string {
  const d = value === null || value === undefined ? null : toDate(value);
  return d ? `${(opts.seconds ? DATE_TIME_SECONDS : DATE_TIME).format(d)} UTC` : "—";
}

/** A unix time in seconds, as the API and the link views carry them, as milliseconds. */
export const fromUnixSeconds = (seconds: number | null | undefined): number | null =>
  seconds === null || seconds === undefined ? null : seconds * 1000;
