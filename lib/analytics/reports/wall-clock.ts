// The wall-clock time of an instant in a time zone, read through Intl (pure, also run in the
// browser): the one formatter the Analytics page's dates (page-url.ts) and the answers' zoned
// instants (service.ts zonedIso) both read. Building a formatter is the costly part: make one per
// zone and use it for many instants.

export type WallClockParts = Record<"year" | "month" | "day" | "hour" | "minute" | "second", string> & {
  /** "GMT-05:00" (or "GMT" for UTC), with `withOffset` only */
  timeZoneName?: string;
};

/** A formatter of instants as wall-clock parts in `timeZone` (24-hour, zero-padded), optionally with the zone's offset. */
export function wallClockFormat(timeZone: string, withOffset = false): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    ...(withOffset ? { timeZoneName: "longOffset" as const } : {}),
  });
}

/** The wall-clock parts of instant `at` through `format` (wallClockFormat). */
export function wallClockParts(format: Intl.DateTimeFormat, at: Date | number): WallClockParts {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const p of format.formatToParts(at)) parts[p.type] = p.value;
  return parts as WallClockParts;
}
