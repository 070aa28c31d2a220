import Link from "next/link";
import { UNKNOWN_LANGUAGE } from "@/lib/analytics/model";
import { countryName } from "@/lib/analytics/reports/countries";
import { withParams } from "@/lib/analytics/reports/page-url";
import { INTERVALS } from "@/lib/analytics/reports/schemas";
import type { AnalyticsReport, Panel } from "@/lib/analytics/reports/report";
import { Card, secondaryButtonClass } from "@/components/ui";
import { TimeseriesChart, type SeriesPoint } from "./timeseries-chart";

// The analytics of a workspace (or of one link): interval picker, bots toggle, active filters,
// totals, the time series and top-N panels whose rows filter the page. Every state is in the URL.

const INTERVAL_LABEL: Record<(typeof INTERVALS)[number], string> = {
  "24h": "24 hours",
  "7d": "7 days",
  "30d": "30 days",
  "90d": "90 days",
  "1y": "1 year",
  all: "All",
};
const PANEL_TITLE: Record<Panel, string> = {
  countries: "Countries",
  referrers: "Referrers",
  devices: "Devices",
  browsers: "Browsers",
  os: "Operating systems",
  links: "Links",
  destinations: "Destinations",
  languages: "Languages",
};
const PANEL_COLUMN: Record<Panel, string> = {
  countries: "Country",
  referrers: "Referrer",
  devices: "Device",
  browsers: "Browser",
  os: "Operating system",
  links: "Link",
  destinations: "Sent to",
  languages: "Language",
};
const FILTER_LABEL: Record<string, string> = {
  link: "Link",
  folder: "Folder",
  country: "Country",
  city: "City",
  device: "Device",
  browser: "Browser",
  os: "OS",
  referrer: "Referrer",
  qr: "QR scans",
};
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const fmt = (n: number) => n.toLocaleString("en");

type Row = Record<string, unknown> & { clicks: number; visitors: number };
/** A row's label and the filter it applies (null: cannot be filtered by, e.g. an unknown browser). */
function rowFilter(panel: Panel, r: Row): { label: string; filter: Record<string, string> | null } {
  switch (panel) {
    case "countries":
      return r.country
        ? { label: String(r.name ?? r.country), filter: { country: String(r.country) } }
        : { label: "Unknown", filter: null };
    case "referrers":
      return r.referrer
        ? { label: String(r.referrer), filter: { referrer: String(r.referrer) } }
        : { label: "Direct or none", filter: { referrer: "(direct)" } };
    case "devices":
      return { label: cap(String(r.device)), filter: { device: String(r.device) } };
    case "browsers":
      return r.browser ? { label: String(r.browser), filter: { browser: String(r.browser) } } : { label: "Unknown", filter: null };
    case "os":
      return r.os ? { label: String(r.os), filter: { os: String(r.os) } } : { label: "Unknown", filter: null };
    case "links": {
      const l = r.link as { code: string | null; domain: string | null };
      return l.code
        ? { label: `${l.domain}/${l.code}`, filter: { link: l.code, domain: l.domain ?? "" } }
        : { label: "Deleted link", filter: null };
    }
    // neither is a filter of analytics: their rows are labels only
    case "destinations":
      return { label: r.destination ? String(r.destination) : "Not recorded", filter: null };
    case "languages":
      return { label: r.language === UNKNOWN_LANGUAGE ? "Unknown" : String(r.language), filter: null };
  }
}

function chipLabel(key: string, value: string): string {
  if (key === "country") return countryName(value) ?? value;
  if (key === "referrer" && value === "(direct)") return "Direct or none";
  if (key === "qr") return value === "true" ? "only" : "none";
  return value;
}

export function AnalyticsView({
  report,
  basePath,
  exportPath,
  fixed = [],
  title = "Analytics",
}: {
  report: AnalyticsReport;
  basePath: string;
  exportPath: string;
  /** parameters that belong to the page itself (a link page's link and domain): never shown as removable */
  fixed?: string[];
  title?: string;
}) {
  const params = report.params;
  const own = Object.fromEntries(Object.entries(params).filter(([k]) => !fixed.includes(k)));
  const href = (changes: Record<string, string | null>) => withParams(basePath, own, changes);
  const interval = params.start || params.end ? null : (params.interval ?? "30d");
  const bots = params.bots ?? "exclude";
  const filters = Object.entries(own).filter(([k]) => k in FILTER_LABEL && k !== "domain");
  const series = (report.series.data ?? []) as SeriesPoint[];
  const exportHref = withParams(exportPath, params);

  return (
    <section aria-label={title} className="space-y-6">
      {report.rangeNotice && (
        <div role="status" className="rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-800">
          {report.rangeNotice}
        </div>
      )}
      {report.problem && (
        <div role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-800">
          Some parameters in the address were not understood ({report.problem}); showing the last 30 days instead.
        </div>
      )}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <nav aria-label="Time range" className="flex flex-wrap gap-1">
          {INTERVALS.map((i) => (
            <Link
              key={i}
              href={href({ interval: i === "30d" ? null : i, start: null, end: null })}
              aria-current={interval === i ? "page" : undefined}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${interval === i ? "bg-brand-600 text-white" : "border border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}
            >
              {INTERVAL_LABEL[i]}
            </Link>
          ))}
        </nav>
        <div className="flex flex-wrap gap-2">
          <Link
            href={href({ bots: bots === "exclude" ? "include" : null })}
            className={secondaryButtonClass}
            aria-pressed={bots !== "exclude"}
            role="button"
          >
            {bots === "exclude" ? "Include bots" : "People only"}
          </Link>
          <a href={exportHref} download className={secondaryButtonClass}>
            Export CSV
          </a>
        </div>
      </div>

      {filters.length > 0 && (
        <ul aria-label="Filters" className="flex flex-wrap gap-2">
          {filters.map(([k, v]) => (
            <li key={k}>
              <Link
                href={href(k === "link" ? { link: null, domain: null } : { [k]: null })}
                className="inline-flex items-center gap-1 rounded-full bg-brand-100 px-3 py-1 text-xs font-medium text-brand-700 hover:bg-brand-50"
                aria-label={`Remove filter ${FILTER_LABEL[k]}: ${chipLabel(k, v)}`}
              >
                {FILTER_LABEL[k]}: {chipLabel(k, v)} <span aria-hidden>×</span>
              </Link>
            </li>
          ))}
        </ul>
      )}

      <Card title={title === "Analytics" ? "Clicks over time" : title}>
        <div className="mb-4 flex flex-wrap gap-8">
          <div>
            <p className="text-2xl font-semibold" data-testid="total-clicks">
              {fmt(report.total.clicks ?? 0)}
            </p>
            <p className="text-xs text-slate-500">
              {bots === "only" ? "bot visits" : bots === "include" ? "clicks and bot visits" : "clicks"}
            </p>
          </div>
          <div>
            <p className="text-2xl font-semibold" data-testid="total-visitors">
              {fmt(report.total.visitors ?? 0)}
            </p>
            <p className="text-xs text-slate-500">unique visitors (per day)</p>
          </div>
        </div>
        <TimeseriesChart points={series} timezone={report.series.timezone} granularity={report.series.granularity ?? "day"} />
        <p className="mt-2 text-xs text-slate-500">
          Times in {report.series.timezone}. Bots are {bots === "exclude" ? "not counted" : "included"}. Kept for {report.retentionDays}{" "}
          days on your plan.
        </p>
      </Card>

      <div className="grid gap-6 md:grid-cols-2">
        {(Object.keys(report.panels) as Panel[]).map((panel) => (
          <TopPanel key={panel} panel={panel} rows={(report.panels[panel]?.data ?? []) as Row[]} href={href} />
        ))}
      </div>
    </section>
  );
}

function TopPanel({ panel, rows, href }: { panel: Panel; rows: Row[]; href: (c: Record<string, string | null>) => string }) {
  const max = Math.max(1, ...rows.map((r) => r.clicks));
  return (
    <Card title={PANEL_TITLE[panel]}>
      {rows.length === 0 ? (
        <p className="text-sm text-slate-500">No clicks in this range.</p>
      ) : (
        <table className="w-full table-fixed text-sm" aria-label={PANEL_TITLE[panel]}>
          <thead className="text-xs text-slate-500">
            <tr>
              <th className="pb-1 text-left font-medium">{PANEL_COLUMN[panel]}</th>
              <th className="w-16 pb-1 text-right font-medium">Clicks</th>
              <th className="w-16 pb-1 text-right font-medium">Visitors</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const { label, filter } = rowFilter(panel, r);
              return (
                <tr key={i} className="relative">
                  <td className="relative truncate py-1 pr-2">
                    <span
                      aria-hidden
                      className="absolute inset-y-0.5 left-0 rounded bg-brand-50"
                      style={{ width: `${(r.clicks / max) * 100}%` }}
                    />
                    {filter ? (
                      <Link
                        href={href(filter)}
                        className="relative text-slate-800 hover:text-brand-700 hover:underline"
                        title={`Filter by ${label}`}
                      >
                        {label}
                      </Link>
                    ) : (
                      <span className="relative text-slate-600" title={label}>
                        {label}
                      </span>
                    )}
                  </td>
                  <td className="py-1 text-right tabular-nums">{fmt(r.clicks)}</td>
                  <td className="py-1 text-right tabular-nums text-slate-600">{fmt(r.visitors)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </Card>
  );
}
