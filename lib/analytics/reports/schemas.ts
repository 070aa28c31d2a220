import { z } from "zod";
import { text } from "../../links/schemas.ts";
import { tagName } from "../../tags/schemas.ts";
import { BOT_MODES, DEVICES, DIRECT, TOP_GROUPS, UNKNOWN_LANGUAGE } from "../model.ts";

// The parameters of GET /api/v1/analytics (and its export, and the Analytics page), as query-string
// text, and the answers' shapes (for the OpenAPI document). Filters are listed in FILTER_PARAMS so
// the page, the API and the export take the same ones.

export const GROUP_BYS = ["count", "timeseries", ...TOP_GROUPS] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
export const INTERVALS = ["24h", "7d", "30d", "90d", "1y", "all"] as const;
export type Interval = (typeof INTERVALS)[number];
export const GRANULARITIES = ["hour", "day"] as const;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 10;

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** Unix seconds or ISO 8601 (a date, or a date and time; without an offset it is UTC) -> unix ms. */
export function parseInstant(raw: string): number | null {
  const v = raw.trim();
  if (/^\d{1,11}$/.test(v)) return Number(v) * 1000;
  const m = ISO.exec(v);
  if (!m) return null;
  const hasTime = v.length > 10;
  const ms = Date.parse(hasTime && !m[1] ? `${v.replace(" ", "T")}Z` : v.replace(" ", "T"));
  return Number.isFinite(ms) ? ms : null;
}

const instant = text()
  .transform((v, ctx) => {
    const ms = parseInstant(v);
    if (ms === null) {
      ctx.addIssue({
        code: "custom",
        message: "must be unix seconds or an ISO 8601 date or time (e.g. 2026-03-01 or 2026-03-01T12:00:00Z)",
      });
      return z.NEVER;
    }
    return ms;
  })
  .describe("Unix seconds or ISO 8601 (a time without an offset is UTC).");

/** An IANA time zone name that this Node knows (PostgreSQL knows the same names). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const filterText = (what: string) => text().trim().min(1, "must not be empty").max(200, "must be at most 200 characters").describe(what);

/** The filters (shared by the API, the export and the page); campaigns may add more here. */
export const filterParams = {
  link: text()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, "must be a link code")
    .optional()
    .describe("Only this link (its code); with domain when the code exists on several of your domains."),
  domain: text()
    .trim()
    .toLowerCase()
    .min(1)
    .max(253)
    .optional()
    .describe("The host of the link named by link (the default short domain for the default domain)."),
  folder: text()
    .trim()
    .max(200, "must be at most 200 characters")
    .transform((v) => v.replace(/^\/+|\/+$/g, ""))
    .optional()
    .describe("Only links in this folder and its subfolders (visitors: each link's unique visitors, summed)."),
  tag: z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(tagName).max(20, "at most 20 tags"))
    .optional()
    .describe(
      "Only links with any of these tags (their tags now); repeat for several: tag=a&tag=b. Visitors: each link's unique visitors, summed.",
    ),
  country: text()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166 alpha-2 code such as US")
    .transform((v) => v.toUpperCase())
    .optional()
    .describe("ISO 3166 alpha-2 country code."),
  city: filterText("City name (with a city database, GEOIP_DB).").optional(),
  device: z
    .enum(DEVICES, { error: `must be one of ${DEVICES.join(", ")}` })
    .optional()
    .describe(`One of ${DEVICES.join(", ")}.`),
  browser: filterText("Browser name, e.g. Chrome, Safari, Firefox, Edge (any case).").optional(),
  os: filterText("Operating system, e.g. iOS, Android, Windows, macOS (any case).").optional(),
  referrer: filterText(`Referrer host, e.g. t.co; ${DIRECT} for visits without a referrer.`).optional(),
  qr: z
    .enum(["true", "false"], { error: "must be true or false" })
    .transform((v) => v === "true")
    .optional()
    .describe("true: only QR-code scans; false: none."),
  utm_source: filterText("Only links whose URL has this utm_source value (decoded, exact; the links' URLs now).").optional(),
  utm_medium: filterText("Only links whose URL has this utm_medium value (decoded, exact; the links' URLs now).").optional(),
  utm_campaign: filterText("Only links whose URL has this utm_campaign value (decoded, exact; the links' URLs now).").optional(),
  destination: text()
    .trim()
    .min(1, "must not be empty")
    .max(2048, "must be at most 2048 characters")
    .optional()
    .describe("Only visits sent to this URL (exact, as groupBy=destinations answers it)."),
  language: text()
    .trim()
    .regex(/^[A-Za-z]{2,8}$/, `must be a language primary subtag such as en, or ${UNKNOWN_LANGUAGE}`)
    .transform((v) => v.toLowerCase())
    .optional()
    .describe(`A language primary subtag such as en (as groupBy=languages answers it); ${UNKNOWN_LANGUAGE}: visits without one.`),
  bots: z
    .enum(BOT_MODES, { error: `must be one of ${BOT_MODES.join(", ")}` })
    .optional()
    .describe("exclude (default): people only; include: people and bots; only: bots only."),
};

const rangeParams = {
  interval: z
    .enum(INTERVALS, { error: `must be one of ${INTERVALS.join(", ")}` })
    .optional()
    .describe("The last 24h, 7d, 30d (default), 90d, 1y, or all the plan keeps. Not with start/end."),
  start: instant.optional(),
  end: instant
    .optional()
    .describe("End of the range (exclusive; default now; a later end than a day from now is cut to that). Unix seconds or ISO 8601."),
  timezone: text()
    .refine(isTimeZone, "must be an IANA time zone such as America/New_York")
    .optional()
    .describe("IANA time zone of hour and day buckets (default UTC)."),
};

export const analyticsQuerySchema = z.strictObject({
  groupBy: z
    .enum(GROUP_BYS, { error: `must be one of ${GROUP_BYS.join(", ")}` })
    .optional()
    .describe(
      "What to answer: count (default), timeseries, or the top values of countries, cities, referrers, devices, browsers, os, links, qr, tags, utm_source, utm_medium, utm_campaign (tags and UTM values are the links' current ones), destinations (the URL each visit was sent to, before forwarding) or languages (the first Accept-Language primary subtag).",
    ),
  ...rangeParams,
  granularity: z
    .enum(GRANULARITIES, { error: `must be one of ${GRANULARITIES.join(", ")}` })
    .optional()
    .describe("groupBy=timeseries: hour or day buckets (default: hour for ranges up to 48 hours, else day); hour covers at most 31 days."),
  ...filterParams,
  limit: text()
    .regex(/^\d{1,3}$/, `must be a whole number from 1 to ${LIMIT_MAX}`)
    .transform(Number)
    .pipe(z.number().min(1, `must be from 1 to ${LIMIT_MAX}`).max(LIMIT_MAX, `must be from 1 to ${LIMIT_MAX}`))
    .optional()
    .describe(`Rows of a top-N answer, 1 to ${LIMIT_MAX} (default ${LIMIT_DEFAULT}).`),
});
export type AnalyticsQueryInput = z.output<typeof analyticsQuerySchema>;

export const analyticsExportQuerySchema = z.strictObject({ ...rangeParams, ...filterParams });
export type AnalyticsExportInput = z.output<typeof analyticsExportQuerySchema>;

// ---- answers ----
const measures = {
  clicks: z.number().int().describe("Clicks (bot visits only when bots=include or only)."),
  visitors: z.number().int().describe("Unique visitors: distinct visitor keys per UTC day, summed over the days."),
};
const range = {
  start: z.string().describe("Start of the range answered (ISO 8601, UTC), after the plan's retention is applied."),
  end: z.string().describe("End of the range (exclusive), after it is cut to at most a day from now."),
  timezone: z.string(),
};

export const analyticsAnswerSchema = z.object({
  groupBy: z.enum(GROUP_BYS),
  ...range,
  clicks: z.number().int().optional().describe("groupBy=count"),
  visitors: z.number().int().optional().describe("groupBy=count"),
  granularity: z
    .enum(GRANULARITIES)
    .optional()
    .describe("groupBy=timeseries: as asked, else hour for ranges up to 48 hours and day beyond."),
  data: z
    .array(
      z.object({
        start: z.string().optional().describe("timeseries: the bucket's start in the time zone, ISO 8601 with offset."),
        country: z.string().nullable().optional().describe("countries, cities: ISO alpha-2 (null: unknown)."),
        name: z.string().nullable().optional().describe("countries: the country's English name."),
        city: z.string().nullable().optional(),
        referrer: z.string().nullable().optional().describe("referrers: host, null for visits without a referrer."),
        device: z.string().optional(),
        browser: z.string().nullable().optional(),
        os: z.string().nullable().optional(),
        link: z
          .object({ code: z.string().nullable(), domain: z.string().nullable(), url: z.string().nullable() })
          .optional()
          .describe("links (null fields: a deleted link)."),
        qr: z.boolean().optional(),
        tag: z.string().optional().describe("tags: the tag's name (a click on a link with several tags counts for each)."),
        color: z.string().optional().describe("tags: the tag's colour."),
        destination: z
          .string()
          .nullable()
          .optional()
          .describe("destinations: the URL the visits were sent to, before forwarding (null: not recorded, visits from before it was)."),
        language: z
          .string()
          .optional()
          .describe(`languages: the first Accept-Language primary subtag, lower case (${UNKNOWN_LANGUAGE}: none given).`),
        utm: z
          .string()
          .nullable()
          .optional()
          .describe("utm_source, utm_medium, utm_campaign: the value in the link's URL, decoded (null: none or a deleted link)."),
        ...measures,
      }),
    )
    .optional()
    .describe("timeseries: every bucket of the range; top-N: at most limit rows, most clicks first."),
});
