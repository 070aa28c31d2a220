import Link from "next/link";
import { Suspense } from "react";
import { UNKNOWN_LANGUAGE } from "@/lib/analytics/model";
import { countryName } from "@/lib/analytics/reports/countries";
import { dateInZone, withParams } from "@/lib/analytics/reports/page-url";
import { INTERVALS } from "@/lib/analytics/reports/schemas";
import { changeLabel, type AnalyticsReport, type Panel } from "@/lib/analytics/reports/report";
import { Card, offscreenCardClass, secondaryButtonClass } from "@/components/ui";
import { CustomRange } from "./custom-range";
import { PanelTabs } from "./panel-tabs";
import { TimeseriesChart, type SeriesPoint } from "./timeseries-chart";

// The analytics of a workspace (or of one link, or a read-only share page): interval presets and a
// custom range, bots toggle, active filters, totals with the previous period's, the time series and
// top-N panels whose rows filter the page, related ones sharing a card as tabs (PANEL_CARDS; "View
// all": one panel's rows up to the API's limit).
// Every state is in the URL. Every figure comes from the report (reports/report.ts), never added up here.
// A streamed report's panels follow the totals and the series (Suspense) as their queries answer.
// Only the time-range presets are prefetched: the panels' rows, "View all", the filter chips and
// the bots toggle are up to about 170 links, each a page the server would render ahead on every
// view of the page (as the links list's rows, app/w/[slug]/links/link-row.tsx).

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
  cities: "Cities",
  referrers: "Referrers",
  devices: "Devices",
  browsers: "Browsers",
  os: "Operating systems",
  links: "Links",
  tags: "Tags",
  utm_source: "UTM source",
  utm_medium: "UTM medium",
  utm_campaign: "UTM campaign",
  qr: "QR versus link",
  destinations: "Destinations",
  languages: "Languages",
};
const PANEL_COLUMN: Record<Panel, string> = {
  countries: "Country",
  cities: "City",
  referrers: "Referrer",
  devices: "Device",
  browsers: "Browser",
  os: "Operating system",
  links: "Link",
  tags: "Tag",
  utm_source: "Source",
  utm_medium: "Medium",
  utm_campaign: "Campaign",
  qr: "Visit",
  destinations: "Sent to",
  languages: "Language",
};
/**
 * The panels as cards of related ones, each card a set of tabs (panel-tabs.tsx), like Dub's: six
 * cards where there are fourteen tables. A panel no card names gets a card of its own.
 */
const PANEL_CARDS: { title: string; panels: Panel[] }[] = [
  { title: "Locations", panels: ["countries", "cities", "languages"] },
  { title: "Referrers", panels: ["referrers"] },
  { title: "Devices", panels: ["devices", "browsers", "os"] },
  { title: "Links", panels: ["links", "destinations"] },
  { title: "UTM", panels: ["utm_source", "utm_medium", "utm_campaign"] },
  { title: "Tags and QR", panels: ["tags", "qr"] },
];
/** A tab's visible label where the card's title already says the rest ("Source" under "UTM"). */
const TAB_LABEL: Partial<Record<Panel, string>> = { utm_source: "Source", utm_medium: "Medium", utm_campaign: "Campaign" };
const FILTER_LABEL: Record<string, string> = {
  link: "Link",
  folder: "Folder",
  tag: "Tag",
  utm_source: "UTM source",
  utm_medium: "UTM medium",
  utm_campaign: "UTM campaign",
  country: "Country",
  city: "City",
  device: "Device",
  browser: "Browser",
  os: "OS",
  referrer: "Referrer",
  qr: "Visit",
  destination: "Sent to",
  language: "Language",
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
    case "cities":
      return r.city
        ? { label: r.country ? `${r.city}, ${r.country}` : String(r.city), filter: { city: String(r.city) } }
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
    case "tags":
      return { label: String(r.tag), filter: { tag: String(r.tag) } };
    case "utm_source":
    case "utm_medium":
    case "utm_campaign":
      return r.utm ? { label: String(r.utm), filter: { [panel]: String(r.utm) } } : { label: "None", filter: null };
    case "qr":
      return { label: r.qr ? "QR scan" : "Link click", filter: { qr: String(r.qr === true) } };
    case "destinations":
      return r.destination
        ? { label: String(r.destination), filter: { destination: String(r.destination) } }
        : { label: "Not recorded", filter: null };
    case "languages":
      return { label: r.language === UNKNOWN_LANGUAGE ? "Unknown" : String(r.language), filter: { language: String(r.language) } };
  }
}

function chipLabel(key: string, value: string): string {
  if (key === "country") return countryName(value) ?? value;
  if (key === "referrer" && value === "(direct)") return "Direct or none";
  if (key === "qr") return value === "true" ? "QR scans" : "link clicks";
  if (key === "language" && value === UNKNOWN_LANGUAGE) return "Unknown";
  return value;
}

export function AnalyticsView({
  report,
  basePath,
  exportPath,
  fixed = [],
  title = "Analytics",
  viewAll = null,
  readOnly = false,
}: {
  report: AnalyticsReport;
  basePath: string;
  /** the CSV download (null: none, e.g. a share page) */
  exportPath: string | null;
  /** parameters that belong to the page itself (a link page's link and domain): never shown as removable */
  fixed?: string[];
  title?: string;
  /** "View all" of one panel: only that panel, with all its rows (report.panels has just it) */
  viewAll?: Panel | null;
  /** a read-only share page: the view's filters and range are fixed, nothing links back into the workspace */
  readOnly?: boolean;
}) {
  const params = report.params;
  const own = Object.fromEntries(Object.entries(params).filter(([k]) => !fixed.includes(k)));
  const href = (changes: Record<string, string | null>) => withParams(basePath, own, changes);
  const custom = Boolean(params.start || params.end);
  const interval = custom ? null : (params.interval ?? "30d");
  const bots = params.bots ?? "exclude";
  const filters = Object.entries(own).filter(([k]) => k in FILTER_LABEL && k !== "domain");
  const series = (report.series.data ?? []) as SeriesPoint[];
  const previousSeries = (report.previous?.series.data ?? null) as SeriesPoint[] | null;
  const exportHref = exportPath ? withParams(exportPath, params) : null;
  const { start: rangeStart, end: rangeEnd, timezone } = report.series;
  const rangeText = `${dateInZone(Date.parse(rangeStart), timezone)} to ${dateInZone(Math.max(Date.parse(rangeStart), Date.parse(rangeEnd) - 1), timezone)}`;
  const panelHref = readOnly ? null : href;

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
      {!readOnly && (
        <div className="flex flex-wrap items-end justify-between gap-3">
          <div className="flex flex-wrap items-end gap-3">
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
            <CustomRange
              key={`${rangeStart}/${rangeEnd}/${timezone}`}
              basePath={basePath}
              params={own}
              start={rangeStart}
              end={rangeEnd}
              timezone={timezone}
            />
          </div>
          <div className="flex flex-wrap gap-2">
            <Link
              href={href({ bots: bots === "exclude" ? "include" : null })}
              prefetch={false}
              className={secondaryButtonClass}
              aria-pressed={bots !== "exclude"}
              role="button"
            >
              {bots === "exclude" ? "Include bots" : "People only"}
            </Link>
            {exportHref && (
              <a href={exportHref} download className={secondaryButtonClass} data-testid="export-csv">
                Export CSV
              </a>
            )}
          </div>
        </div>
      )}

      {filters.length > 0 && (
        <ul aria-label="Filters" className="flex flex-wrap gap-2">
          {filters.map(([k, v]) => (
            <li key={k}>
              {readOnly ? (
                <span className="inline-flex items-center gap-1 rounded-full bg-brand-100 px-3 py-1 text-xs font-medium text-brand-700">
                  {FILTER_LABEL[k]}: {chipLabel(k, v)}
                </span>
              ) : (
                <Link
                  href={href(k === "link" ? { link: null, domain: null } : { [k]: null })}
                  prefetch={false}
                  className="inline-flex items-center gap-1 rounded-full bg-brand-100 px-3 py-1 text-xs font-medium text-brand-700 hover:bg-brand-50"
                  aria-label={`Remove filter ${FILTER_LABEL[k]}: ${chipLabel(k, v)}`}
                >
                  {FILTER_LABEL[k]}: {chipLabel(k, v)} <span aria-hidden>×</span>
                </Link>
              )}
            </li>
          ))}
        </ul>
      )}

      <Card title={title === "Analytics" ? "Clicks over time" : title}>
        <p className="-mt-2 mb-3 text-xs text-slate-600" data-testid="range-shown">
          {rangeText} ({timezone}){report.previous ? ", compared with the period of the same length before it" : ""}
        </p>
        <div className="mb-4 flex flex-wrap gap-8">
          <Headline
            testId="total-clicks"
            value={report.total.clicks ?? 0}
            previous={report.previous?.total.clicks}
            label={bots === "only" ? "bot visits" : bots === "include" ? "clicks and bot visits" : "clicks"}
          />
          <Headline
            testId="total-visitors"
            value={report.total.visitors ?? 0}
            previous={report.previous?.total.visitors}
            label="visitors"
          />
        </div>
        <TimeseriesChart points={series} previous={previousSeries} timezone={timezone} granularity={report.series.granularity ?? "day"} />
        <p className="mt-2 text-xs text-slate-600">
          Visitors: a visitor counts once a day, so someone who clicks on three days counts three times. Times in {timezone}. Bots are{" "}
          {bots === "exclude" ? "not counted" : "included"}. Kept for {report.retentionDays} days on the plan.
        </p>
      </Card>

      {viewAll ? (
        <div className="space-y-3" data-testid="view-all" data-panels-range={`${rangeStart}/${rangeEnd}`}>
          {!readOnly && (
            <Link href={href({ all: null })} className="text-sm font-medium text-brand-700 hover:underline">
              ← All panels
            </Link>
          )}
          <TopPanel panel={viewAll} rows={(report.panels[viewAll]?.data ?? []) as Row[]} href={panelHref} all />
        </div>
      ) : (
        <PanelGrid panels={report.panels} range={`${rangeStart}/${rangeEnd}`} href={panelHref} />
      )}
      {!viewAll && report.panelsLater && (
        <Suspense
          fallback={
            <p className="text-sm text-slate-600" aria-busy="true" data-testid="panels-loading">
              Loading the panels…
            </p>
          }
        >
          <StreamedPanels later={report.panelsLater} range={`${rangeStart}/${rangeEnd}`} href={panelHref} />
        </Suspense>
      )}
    </section>
  );
}

function Headline({ value, previous, label, testId }: { value: number; previous: number | undefined; label: string; testId: string }) {
  const change = changeLabel(value, previous);
  return (
    <div>
      <p className="text-2xl font-semibold" data-testid={testId}>
        {fmt(value)}
      </p>
      <p className="text-xs text-slate-600">{label}</p>
      {change !== null && (
        <p className="mt-0.5 text-xs text-slate-700" data-testid={`${testId}-previous`}>
          <span
            className={
              change.startsWith("-") ? "font-medium text-red-700" : change === "0 %" ? "font-medium" : "font-medium text-emerald-700"
            }
          >
            {change}
          </span>{" "}
          vs {fmt(previous ?? 0)} before
        </p>
      )}
    </div>
  );
}

type PanelHref = ((c: Record<string, string | null>) => string) | null;

/** The top-N panels in their cards; `range` ("start/end") says which range they answer (the benchmark waits for it). */
function PanelGrid({ panels, range, href }: { panels: AnalyticsReport["panels"]; range: string; href: PanelHref }) {
  const names = Object.keys(panels) as Panel[];
  if (!names.length) return null;
  const carded = new Set(PANEL_CARDS.flatMap((c) => c.panels));
  const cards = PANEL_CARDS.map((c) => ({ title: c.title, panels: c.panels.filter((p) => p in panels) }))
    .concat(names.filter((p) => !carded.has(p)).map((p) => ({ title: PANEL_TITLE[p], panels: [p] })))
    .filter((c) => c.panels.length > 0);
  const rowsOf = (panel: Panel) => (panels[panel]?.data ?? []) as Row[];
  return (
    <div className="grid gap-6 md:grid-cols-2" data-panels-range={range}>
      {cards.map((card) =>
        card.panels.length === 1 ? (
          <TopPanel key={card.title} panel={card.panels[0]} rows={rowsOf(card.panels[0])} href={href} />
        ) : (
          <PanelTabs
            key={card.title}
            title={card.title}
            tabs={card.panels.map((panel) => ({
              id: panel,
              label: TAB_LABEL[panel] ?? PANEL_TITLE[panel],
              name: TAB_LABEL[panel] ? PANEL_TITLE[panel] : undefined,
              action: href && rowsOf(panel).length > 0 ? <ViewAllLink panel={panel} href={href} /> : null,
              content: <PanelTable panel={panel} rows={rowsOf(panel)} href={href} />,
            }))}
          />
        ),
      )}
    </div>
  );
}

/** The panels of a streamed report (report.ts streamPanels): rendered when their queries answer. */
async function StreamedPanels({
  later,
  range,
  href,
}: {
  later: NonNullable<AnalyticsReport["panelsLater"]>;
  range: string;
  href: PanelHref;
}) {
  return <PanelGrid panels={await later} range={range} href={href} />;
}

/** One panel in a card of its own (a card of one panel, or "View all"). */
function TopPanel({
  panel,
  rows,
  href,
  all = false,
}: {
  panel: Panel;
  rows: Row[];
  /** null: rows are labels only (a share page) */
  href: PanelHref;
  all?: boolean;
}) {
  return (
    <Card
      title={PANEL_TITLE[panel]}
      className={offscreenCardClass}
      actions={!all && href && rows.length > 0 ? <ViewAllLink panel={panel} href={href} /> : undefined}
    >
      <PanelTable panel={panel} rows={rows} href={href} />
    </Card>
  );
}

/** "View all" of one panel: its rows up to the API's limit, in a view of their own. */
function ViewAllLink({ panel, href }: { panel: Panel; href: NonNullable<PanelHref> }) {
  return (
    <Link
      href={href({ all: panel })}
      prefetch={false}
      className="text-sm font-medium text-brand-700 hover:underline"
      aria-label={`View all: ${PANEL_TITLE[panel]}`}
    >
      View all
    </Link>
  );
}

/** A panel's rows, each a filter of the page (unless `href` is null). */
function PanelTable({ panel, rows, href }: { panel: Panel; rows: Row[]; href: PanelHref }) {
  if (rows.length === 0) return <p className="text-sm text-slate-600">No clicks in this range.</p>;
  const max = Math.max(1, ...rows.map((r) => r.clicks));
  return (
    <table className="w-full table-fixed text-sm" aria-label={PANEL_TITLE[panel]} data-panel={panel}>
      <thead className="text-xs text-slate-600">
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
                {filter && href ? (
                  <Link
                    href={href({ ...filter, all: null })}
                    prefetch={false}
                    className="relative text-slate-800 hover:text-brand-700 hover:underline"
                    title={`Filter by ${label}`}
                  >
                    {label}
                  </Link>
                ) : (
                  <span className="relative text-slate-700" title={label}>
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
  );
}
