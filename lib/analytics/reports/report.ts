import { realTimeNow } from "../../clock.ts";
import { ServiceError } from "../../errors.ts";
import { analyticsRetentionDays, planOf } from "../../plans/index.ts";
import type { ClickStore } from "../model.ts";
import { analyticsExportQuerySchema, type AnalyticsExportInput } from "./schemas.ts";
import { analytics, type AnalyticsAnswer, type AnalyticsWorkspace } from "./service.ts";

// What the Analytics page (and the analytics part of a link's page) shows: totals, the time series
// and the top-N panels for one set of filters, read from the URL's search parameters with the
// same schema as the API, so a shared URL shows the same figures.

export const PANELS = ["countries", "referrers", "devices", "browsers", "os", "links", "destinations", "languages"] as const;
export type Panel = (typeof PANELS)[number];
export const PANEL_ROWS = 8;

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
};

export async function analyticsReport(
  workspace: AnalyticsWorkspace,
  params: PageParams,
  options: { panels?: readonly Panel[]; now?: number; store?: ClickStore } = {},
): Promise<AnalyticsReport> {
  const now = options.now ?? realTimeNow();
  const panels = options.panels ?? PANELS;
  const run = async (p: PageParams) => {
    const parsed = analyticsExportQuerySchema.safeParse(p);
    if (!parsed.success) throw ServiceError.validation(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
    const input = parsed.data;
    const [total, series, ...tops] = await Promise.all([
      analytics(workspace, { ...input, groupBy: "count" }, now, options.store),
      analytics(workspace, { ...input, groupBy: "timeseries" }, now, options.store),
      ...panels.map((g) => analytics(workspace, { ...input, groupBy: g, limit: PANEL_ROWS }, now, options.store)),
    ]);
    const rangeNotice = cutRangeNotice(input, series, retentionDays);
    return { input, total, series, panels: Object.fromEntries(panels.map((g, i) => [g, tops[i]])), rangeNotice };
  };
  const retentionDays = analyticsRetentionDays(planOf(workspace.plan));
  try {
    return { ...(await run(params)), params, problem: null, retentionDays };
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    const problem = e.code === "validation" ? e.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join(" ") : e.message;
    // keep what identifies the page itself (a link page's link and domain)
    const base: PageParams = {};
    for (const k of ["link", "domain"]) if (params[k] && e.code === "validation") base[k] = params[k];
    return { ...(await run(base)), params: base, problem, retentionDays };
  }
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
