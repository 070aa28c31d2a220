import { realTimeNow } from "../../clock.ts";
import { db } from "../../db/client.ts";
import { ServiceError } from "../../errors.ts";
import { getLink, hostOf, type LinkWorkspace } from "../../links/index.ts";
import { analyticsRetentionDays, planOf } from "../../plans/index.ts";
import { tagKey } from "../../tags/schemas.ts";
import {
  DAY_MS,
  UNKNOWN_LANGUAGE,
  type Bucket,
  type ClickFilters,
  type ClickQuery,
  type GroupRow,
  type ReportReader,
  type StoreQuery,
  type TopGroup,
  type Totals,
} from "../model.ts";
import { reportStore } from "../store/instance.ts";
import { countryName } from "./countries.ts";
import { wallClockFormat, wallClockParts } from "./wall-clock.ts";
import { LIMIT_DEFAULT, type AnalyticsExportInput, type AnalyticsQueryInput, type GroupBy, type Interval } from "./schemas.ts";

// Click analytics for one workspace: the one place that turns parsed parameters (API, export, the
// Analytics page) into a click-store query and its answer. Ranges are cut to the plan's retention
// and to at most a day after now, and an hourly series to HOURLY_MAX_DAYS: the size of an answer
// (and the work of building it, on the thread that also answers redirects) has a bound whatever a
// URL asks for.

const HOUR_MS = 3_600_000;
const INTERVAL_MS: Record<Exclude<Interval, "all">, number> = {
  "24h": 24 * HOUR_MS,
  "7d": 7 * DAY_MS,
  "30d": 30 * DAY_MS,
  "90d": 90 * DAY_MS,
  "1y": 365 * DAY_MS,
};
/** Ranges up to this long are answered per hour, longer ones per day (unless granularity says). */
export const HOURLY_UP_TO_MS = 48 * HOUR_MS;
/** The longest range an hourly series answers (744 buckets). */
export const HOURLY_MAX_DAYS = 31;
/**
 * How far after now a range may end: nothing later can have clicks, and a day covers the rest of
 * today in every time zone. A later end is cut to this (as a start before the retention is).
 */
export const LATEST_END_AFTER_NOW_MS = DAY_MS;

export type Range = { start: number; end: number };

/**
 * The range asked for, cut to the plan's retention and to at most LATEST_END_AFTER_NOW_MS after
 * now (a day series thus has at most retention + 2 buckets). Throws a validation error for a
 * contradictory one.
 */
export function resolveRange(input: { interval?: Interval; start?: number; end?: number }, retentionDays: number, now: number): Range {
  const kept = now - retentionDays * DAY_MS;
  const latest = now + LATEST_END_AFTER_NOW_MS;
  if (input.interval && (input.start !== undefined || input.end !== undefined)) {
    throw ServiceError.validation([{ path: "interval", message: "use either interval or start/end, not both" }]);
  }
  let start: number;
  let end: number;
  if (input.start !== undefined || input.end !== undefined) {
    if (input.start === undefined) throw ServiceError.validation([{ path: "start", message: "is required when end is given" }]);
    start = input.start;
    end = input.end ?? now;
    if (end <= start) throw ServiceError.validation([{ path: "end", message: "must be after start" }]);
  } else {
    const interval = input.interval ?? "30d";
    end = now;
    start = interval === "all" ? kept : now - INTERVAL_MS[interval];
  }
  start = Math.min(Math.max(start, kept), latest);
  end = Math.max(Math.min(end, latest), start);
  return { start, end };
}

export type AnalyticsWorkspace = LinkWorkspace;

/** A link's id by its code and domain, looked up once for the reports asked together. */
type LinkIds = Map<string, Promise<number>>;

async function buildQuery(
  workspace: AnalyticsWorkspace,
  input: AnalyticsExportInput,
  now: number,
  linkIds: LinkIds = new Map(),
): Promise<{ query: ClickQuery; timezone: string }> {
  const retention = analyticsRetentionDays(planOf(workspace.plan));
  const range = resolveRange(input, retention, now);
  if (input.domain !== undefined && input.link === undefined)
    throw ServiceError.validation([{ path: "domain", message: "is only used with link" }]);
  const filters: ClickFilters = {
    folder: input.folder || undefined,
    tags: input.tag?.length ? input.tag.map(tagKey) : undefined,
    country: input.country,
    city: input.city,
    device: input.device,
    browser: input.browser,
    os: input.os,
    referrer: input.referrer,
    qr: input.qr,
    utmSource: input.utm_source,
    utmMedium: input.utm_medium,
    utmCampaign: input.utm_campaign,
    destination: input.destination,
    language: input.language,
    bots: input.bots ?? "exclude",
  };
  // existence last (400 before 404/409): another workspace's link is 404, a code on several domains 409
  if (input.link !== undefined) {
    const key = `${input.link}\n${input.domain ?? ""}`;
    let id = linkIds.get(key);
    if (!id) linkIds.set(key, (id = getLink(workspace, { code: input.link, domain: input.domain }).then((l) => l.id)));
    filters.linkId = await id;
  }
  return {
    query: { workspaceId: workspace.id, start: new Date(range.start), end: new Date(range.end), filters },
    timezone: input.timezone ?? "UTC",
  };
}

type Row = Record<string, unknown> & { clicks: number; visitors: number };
export type AnalyticsAnswer = {
  groupBy: GroupBy;
  start: string;
  end: string;
  timezone: string;
  clicks?: number;
  visitors?: number;
  granularity?: "hour" | "day";
  data?: Row[];
};

export async function analytics(
  workspace: AnalyticsWorkspace,
  input: AnalyticsQueryInput,
  now = realTimeNow(),
  store: ReportReader = reportStore(),
): Promise<AnalyticsAnswer> {
  return (await analyticsAll(workspace, [input], now, store))[0];
}

/**
 * Several answers at once (a page's totals and series, or its panels), in the order asked: the
 * store answers them together when it can (ReportReader.queryAll), sharing statements.
 */
export async function analyticsAll(
  workspace: AnalyticsWorkspace,
  inputs: AnalyticsQueryInput[],
  now = realTimeNow(),
  store: ReportReader = reportStore(),
): Promise<AnalyticsAnswer[]> {
  const linkIds: LinkIds = new Map();
  const asked = await Promise.all(
    inputs.map(async (input) => {
      const { query, timezone } = await buildQuery(workspace, input, now, linkIds);
      const groupBy = input.groupBy ?? "count";
      const head = { groupBy, start: query.start.toISOString(), end: query.end.toISOString(), timezone };
      if (groupBy === "count") return { input, head, store: { kind: "count", query } as StoreQuery };
      if (groupBy === "timeseries") {
        const granularity = seriesGranularity(query, input.granularity);
        const store = query.end > query.start ? ({ kind: "timeseries", query, unit: granularity, timezone } as StoreQuery) : null;
        return { input, head, store, granularity };
      }
      return { input, head, store: { kind: "top", query, group: groupBy, limit: input.limit ?? LIMIT_DEFAULT } as StoreQuery };
    }),
  );
  const queries = asked.flatMap((a) => (a.store ? [a.store] : []));
  const answered = store.queryAll ? await store.queryAll(queries) : await Promise.all(queries.map((q) => store.query(q)));
  let next = 0;
  return Promise.all(
    asked.map(async ({ input, head, store: q, granularity }) => {
      const answer = q ? answered[next++] : [];
      if (head.groupBy === "count") return { ...head, ...(answer as Totals) };
      if (head.groupBy === "timeseries") {
        const inZone = zonedIso(head.timezone);
        return {
          ...head,
          granularity,
          data: (answer as Bucket[]).map((b) => ({ start: inZone(b.start), clicks: b.clicks, visitors: b.visitors })),
        };
      }
      return { ...head, data: await describeGroups(workspace, input.groupBy as TopGroup, answer as GroupRow[]) };
    }),
  );
}

/** The series' buckets: as asked, else hours up to HOURLY_UP_TO_MS and days beyond; hours over at most HOURLY_MAX_DAYS. */
export function seriesGranularity(range: { start: Date; end: Date }, asked?: "hour" | "day"): "hour" | "day" {
  const length = range.end.getTime() - range.start.getTime();
  if (asked === "hour" && length > HOURLY_MAX_DAYS * DAY_MS)
    throw ServiceError.validation([
      {
        path: "granularity",
        message: `hour buckets cover at most ${HOURLY_MAX_DAYS} days (${HOURLY_MAX_DAYS * 24} buckets); choose a shorter range or granularity=day`,
      },
    ]);
  return asked ?? (length <= HOURLY_UP_TO_MS ? "hour" : "day");
}

async function describeGroups(workspace: AnalyticsWorkspace, group: TopGroup, rows: GroupRow[]): Promise<Row[]> {
  const m = (r: GroupRow) => ({ clicks: r.clicks, visitors: r.visitors });
  switch (group) {
    case "countries":
      return rows.map((r) => ({ country: r.key[0], name: countryName(r.key[0] as string | null), ...m(r) }));
    case "cities":
      return rows.map((r) => ({ city: r.key[0], country: r.key[1], ...m(r) }));
    case "referrers":
      return rows.map((r) => ({ referrer: r.key[0], ...m(r) }));
    case "devices":
      return rows.map((r) => ({ device: r.key[0], ...m(r) }));
    case "browsers":
      return rows.map((r) => ({ browser: r.key[0], ...m(r) }));
    case "os":
      return rows.map((r) => ({ os: r.key[0], ...m(r) }));
    case "qr":
      return rows.map((r) => ({ qr: r.key[0], ...m(r) }));
    case "destinations":
      return rows.map((r) => ({ destination: r.key[0], ...m(r) }));
    case "languages":
      return rows.map((r) => ({ language: r.key[0] ?? UNKNOWN_LANGUAGE, ...m(r) }));
    case "tags":
      return rows.map((r) => ({ tag: r.key[0], color: r.key[1], ...m(r) }));
    case "utm_source":
    case "utm_medium":
    case "utm_campaign":
      return mergeDecoded(rows).map((r) => ({ utm: r.value, ...m(r) }));
    case "links": {
      const ids = rows.map((r) => r.key[0] as number);
      const links = await db().link.findMany({
        where: { id: { in: ids }, workspaceId: workspace.id },
        select: { id: true, code: true, url: true, domainId: true, domain: { select: { host: true } } },
      });
      const byId = new Map(links.map((l) => [l.id, l]));
      return rows.map((r) => {
        const l = byId.get(r.key[0] as number);
        return { link: l ? { code: l.code, domain: hostOf(l), url: l.url } : { code: null, domain: null, url: null }, ...m(r) };
      });
    }
  }
}

/** A query value as written in a URL, decoded ("spring%20sale" and "spring+sale" are "spring sale"). */
function decodeQueryValue(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, " "));
  } catch {
    return v;
  }
}

/** UTM groups by their decoded value: spellings that decode alike are one row (most clicks first again). */
function mergeDecoded(rows: GroupRow[]): (GroupRow & { value: string | null })[] {
  const byValue = new Map<string | null, GroupRow & { value: string | null }>();
  for (const r of rows) {
    const value = r.key[0] === null || r.key[0] === "" ? null : decodeQueryValue(String(r.key[0]));
    const seen = byValue.get(value);
    if (seen) {
      seen.clicks += r.clicks;
      seen.visitors += r.visitors;
    } else byValue.set(value, { ...r, value });
  }
  return [...byValue.values()].sort((a, b) => b.clicks - a.clicks || b.visitors - a.visitors);
}

/** The export's query (same parameters and rules as analytics). */
export async function exportQuery(workspace: AnalyticsWorkspace, input: AnalyticsExportInput, now = realTimeNow()): Promise<ClickQuery> {
  return (await buildQuery(workspace, input, now)).query;
}

/**
 * A function writing instants as the wall-clock time of `timeZone` with its offset
 * ("2026-03-08T00:00:00-05:00"). Building the formatter is the costly part: make one per answer,
 * not one per bucket.
 */
export function zonedIso(timeZone: string): (at: Date) => string {
  const format = wallClockFormat(timeZone, true);
  return (at) => {
    const parts = wallClockParts(format, at);
    const zone = parts.timeZoneName ?? "GMT";
    const offset = zone === "GMT" ? "+00:00" : zone.replace("GMT", "");
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  };
}

/** "2026-03-08T00:00:00-05:00": one instant as the wall-clock time of `timeZone`, with its offset. */
export function isoInZone(at: Date, timeZone: string): string {
  return zonedIso(timeZone)(at);
}
