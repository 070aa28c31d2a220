import { wallClockFormat, wallClockParts } from "./wall-clock.ts";

// URLs of the Analytics page: the current parameters with some changed (null removes one), in a
// stable order, so a filter clicked on the page is kept in the URL and can be shared.
export function withParams(basePath: string, params: Record<string, string>, changes: Record<string, string | null> = {}): string {
  const next: Record<string, string> = { ...params };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  const query = new URLSearchParams(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
  return query ? `${basePath}?${query}` : basePath;
}

// ---- dates of the custom range, in the page's time zone (pure, also run in the browser) ----

const DAY_MS = 86_400_000;

/** The offset of `timeZone` from UTC at instant `ms`, in minutes (east positive). */
function zoneOffsetMinutes(ms: number, timeZone: string): number {
  const parts = wallClockParts(wallClockFormat(timeZone), ms);
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** "2026-03-01": the calendar date of instant `ms` in `timeZone`. */
export function dateInZone(ms: number, timeZone: string): string {
  return new Date(ms + zoneOffsetMinutes(ms, timeZone) * 60_000).toISOString().slice(0, 10);
}

/** The instant a calendar date ("2026-03-01") starts in `timeZone`, as ISO 8601 with the zone's offset (a page URL's start or end). */
export function zoneMidnightIso(date: string, timeZone: string): string {
  const guess = Date.parse(`${date}T00:00:00Z`);
  let offset = zoneOffsetMinutes(guess, timeZone);
  const second = zoneOffsetMinutes(guess - offset * 60_000, timeZone);
  if (second !== offset) offset = second;
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  const mm = String(abs % 60).padStart(2, "0");
  return `${date}T00:00:00${sign}${hh}:${mm}`;
}

/** The date after `date` ("2026-03-01" -> "2026-03-02"): the custom range's end date is inclusive. */
export function nextDate(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}
