import { realTimeNow } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import { analyticsRetentionDays, planOf } from "../../plans/index.ts";
import { DAY_MS, type ClickStore } from "../model.ts";
import { reportStore } from "../store/instance.ts";
import { analyticsExportQuerySchema, LIMIT_MAX, type AnalyticsExportInput, type AnalyticsQueryInput } from "./schemas.ts";
import { analyticsAll, resolveRange, seriesGranularity, type AnalyticsAnswer, type AnalyticsWorkspace, type Range } from "./service.ts";

// What the Analytics page (and the analytics part of a link's page) shows: totals, the time series
// and the top-N panels for one set of filters, read from the URL's search parameters with the
// same schema as the API, so a shared URL shows the same figures.

export const PANELS = [
  "links",
  "referrers",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "tags",
  "countries",
  "cities",
  "devices",
  "browsers",
  "os",
  "qr",
  "destinations",
  "languages",
] as const;
export type Panel = (typeof PANELS)[number];
export const PANEL_ROWS = 8;
/** "View all": one panel's rows, as many as the API answers (its limit's maximum). */
export const PANEL_ROWS_ALL = LIMIT_MAX;

export function isPanel(v: unknown): v is Panel {
  return typeof v === "string" && (PANELS as readonly string[]).includes(v);
}

/** The parameters a page URL may carry (anything else is ignored). */
const PAGE_KEYS = Object.keys(analyticsExportQuerySchema.shape);

export type PageParams = Record<string, string>;

/** The known, single-valued parameters of a page's search parameters. */
export function pageParams(search: Record<string, string | string[] | undefined>): PageParams {
  const out: PageParams = {};
  for (const k of PAGE_KEYS) {
    const v = search[k];
    const s = Array.isArray(v) ? v[0] : v;
    if (s !== undefined && s !== "") out[k] = s;
  }
  return out;
}

export type AnalyticsReport = {
  input: AnalyticsExportInput;
  /** the parameters as understood (empty when they were refused) */
  params: PageParams;
  /** why the URL's parameters were refused (the defaults are shown instead) */
  problem: string | null;
  /** the URL's start or end was cut (to the plan's retention, to a day from now): what is shown instead */
  rangeNotice: string | null;
  retentionDays: number;
  total: AnalyticsAnswer;
  series: AnalyticsAnswer;
  panels: Partial<Record<Panel, AnalyticsAnswer>>;
  /**
   * With `streamPanels`: the panels, still being answered (`panels` is then empty), so the page
   * can show the totals and the series without waiting for every panel's query.
   */
  panelsLater: Promise<Partial<Record<Panel, AnalyticsAnswer>>> | null;
  /**
   * The previous period of the same length, right before the range (same filters): its totals and
   * its series in the same buckets, asked of the same service (null: the range reaches back past
   * what the plan keeps, so there is no whole previous period to compare with).
   */
  previous: { total: AnalyticsAnswer; series: AnalyticsAnswer } | null;
};

export type ReportOptions = {
  panels?: readonly Panel[];
  /** rows per panel (default PANEL_ROWS) */
  rows?: number;
  now?: number;
  store?: ClickStore;
  /** refuse (throw) parameters that cannot be answered instead of showing the defaults: a shared view must never widen */
  strict?: boolean;
  /** answer with the totals, the series and the previous period first, the panels in `panelsLater` */
  streamPanels?: boolean;
};

export async function analyticsReport(
  workspace: AnalyticsWorkspace,
  params: PageParams,
  options: ReportOptions = {},
): Promise<AnalyticsReport> {
  const now = options.now ?? realTimeNow();
  const panels = options.panels ?? PANELS;
  const run = async (p: PageParams) => {
    const parsed = analyticsExportQuerySchema.safeParse(p);
    if (!parsed.success) throw ServiceError.validation(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
    const input = parsed.data;
    // the range as the service resolves it, so the previous period is asked alongside the rest
    const range = resolveRange(input, retentionDays, now);
    // one reader for the page's reports (the range and the period before it): what they all read
    // alike is read once (store/plan.ts pagePlanner)
    const clickStore = options.store ?? reportStore();
    const span = { start: new Date(range.start - (range.end - range.start)), end: new Date(range.end) };
    const store = clickStore.page?.(span) ?? clickStore;
    // the totals, the series and the previous period are asked first, together (the page reader
    // answers them with shared statements), then the panels at once (a handful of shared
    // statements too, sent after the head's on the pool), awaited here only when not streamed
    const before = previousPeriod(input, range, now, retentionDays);
    const head = analyticsAll(
      workspace,
      [{ ...input, groupBy: "count" }, { ...input, groupBy: "timeseries" }, ...(before ?? [])],
      now,
      store,
    );
    // Not held until the head has answered: a range change keeps the old panels on screen until
    // the new ones have come, so the page's new figures show when the panels' answer is in.
    const asked = analyticsAll(
      workspace,
      panels.map((g) => ({ ...input, groupBy: g, limit: options.rows ?? PANEL_ROWS })),
      now,
      store,
    ).then((tops) => Object.fromEntries(panels.map((g, i) => [g, tops[i]])) as Partial<Record<Panel, AnalyticsAnswer>>);
    // a streamed panels' failure is the page's error when it is rendered, never an unhandled rejection
    asked.catch(() => {});
    const [total, series, previousTotal, previousSeries] = await head;
    const previous = previousTotal ? { total: previousTotal, series: previousSeries } : null;
    const rangeNotice = cutRangeNotice(input, series, retentionDays);
    const later = options.streamPanels ? asked : null;
    return { input, total, series, panels: later ? {} : await asked, panelsLater: later, rangeNotice, previous };
  };
  const retentionDays = analyticsRetentionDays(planOf(workspace.plan));
  try {
    return { ...(await run(params)), params, problem: null, retentionDays };
  } catch (e) {
    if (!(e instanceof ServiceError) || options.strict) throw e;
    const problem = e.code === "validation" ? e.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join(" ") : e.message;
    // keep what identifies the page itself (a link page's link and domain)
    const base: PageParams = {};
    for (const k of ["link", "domain"]) if (params[k] && e.code === "validation") base[k] = params[k];
    return { ...(await run(base)), params: base, problem, retentionDays };
  }
}

/**
 * The period of the same length right before the answered range, with the same filters and the
 * same buckets, as its count and its series to ask: null when part of it is older than the plan
 * keeps (a comparison with a period cut short would mislead).
 */
function previousPeriod(
  input: AnalyticsExportInput,
  { start, end }: Range,
  now: number,
  retentionDays: number,
): [AnalyticsQueryInput, AnalyticsQueryInput] | null {
  const length = end - start;
  if (length <= 0 || start - length < now - retentionDays * DAY_MS) return null;
  const asked = { ...input, interval: undefined, start: start - length, end: start };
  // the current series' buckets (service.ts chooses them by the range's length, which is the same)
  const granularity = seriesGranularity({ start: new Date(start), end: new Date(end) });
  return [
    { ...asked, groupBy: "count" },
    { ...asked, groupBy: "timeseries", granularity },
  ];
}

/** The change from the previous period, as a page shows it ("+12 %", "-3 %", "new" from nothing, null: no previous period). */
export function changeLabel(current: number, previous: number | undefined): string | null {
  if (previous === undefined) return null;
  if (previous === 0) return current === 0 ? "0 %" : "new";
  const pct = Math.round(((current - previous) / previous) * 100);
  return `${pct > 0 ? "+" : ""}${pct} %`;
}

/** A sentence saying what is shown when the asked start or end was cut (service.ts resolveRange); null when neither was. */
function cutRangeNotice(input: AnalyticsExportInput, answered: AnalyticsAnswer, retentionDays: number): string | null {
  const start = Date.parse(answered.start);
  const end = Date.parse(answered.end);
  const startCut = input.start !== undefined && input.start < start;
  const endCut = input.end !== undefined && input.end > end;
  if (!startCut && !endCut) return null;
  const at = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  return `Showing ${at(start)} to ${at(end)} UTC: a range starts at most ${retentionDays} days ago (what your plan keeps) and ends at most a day from now.`;
}
