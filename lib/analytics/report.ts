import { ServiceError } from "../errors.ts";
import { analyticsRetentionDays, planOf } from "../plans/index.ts";
import { analyticsExportQuerySchema, type AnalyticsExportInput } from "./schemas.ts";
import { analytics, type AnalyticsAnswer, type AnalyticsWorkspace } from "./service.ts";

// What the Analytics page (and the analytics part of a link's page) shows: totals, the time series
// and the top-N panels for one set of filters, read from the URL's search parameters with the
// same schema as the API, so a shared URL shows the same figures.

export const PANELS = ["countries", "referrers", "devices", "browsers", "os", "links"] as const;
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
  retentionDays: number;
  total: AnalyticsAnswer;
  series: AnalyticsAnswer;
  panels: Partial<Record<Panel, AnalyticsAnswer>>;
};

export async function analyticsReport(
  workspace: AnalyticsWorkspace,
  params: PageParams,
  options: { panels?: readonly Panel[]; now?: number } = {},
): Promise<AnalyticsReport> {
  const now = options.now ?? Date.now();
  const panels = options.panels ?? PANELS;
  const run = async (p: PageParams) => {
    const parsed = analyticsExportQuerySchema.safeParse(p);
    if (!parsed.success) throw ServiceError.validation(parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })));
    const input = parsed.data;
    const [total, series, ...tops] = await Promise.all([
      analytics(workspace, { ...input, groupBy: "count" }, now),
      analytics(workspace, { ...input, groupBy: "timeseries" }, now),
      ...panels.map((g) => analytics(workspace, { ...input, groupBy: g, limit: PANEL_ROWS }, now)),
    ]);
    return { input, total, series, panels: Object.fromEntries(panels.map((g, i) => [g, tops[i]])) };
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
