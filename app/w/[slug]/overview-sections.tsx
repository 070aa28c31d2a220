import Link from "next/link";
import type { AnalyticsReport } from "@/lib/analytics/reports/report";
import type { LinkWithHost } from "@/lib/links";
import { TimeseriesChart, type SeriesPoint } from "@/components/analytics/timeseries-chart";
import { Card, EmptyState } from "@/components/ui";

// The parts of the workspace's Overview (page.tsx): clicks of the last 7 days, top links, recent links.

export const fmt = (n: number) => n.toLocaleString("en");

export function ClicksCard({ slug, report }: { slug: string; report: AnalyticsReport }) {
  const points = (report.series.data ?? []) as SeriesPoint[];
  const clicks = report.total.clicks ?? 0;
  return (
    <Card
      title="Clicks, last 7 days"
      actions={
        <Link href={`/w/${slug}/analytics?interval=7d`} className="text-sm font-medium text-brand-600 hover:underline">
          Analytics
        </Link>
      }
    >
      <p className="mb-3 text-sm text-slate-600">
        <span data-testid="overview-clicks" className="text-2xl font-semibold text-slate-900">
          {fmt(clicks)}
        </span>{" "}
        {clicks === 1 ? "click" : "clicks"} · {fmt(report.total.visitors ?? 0)} {report.total.visitors === 1 ? "visitor" : "visitors"}
      </p>
      {clicks > 0 ? (
        <TimeseriesChart points={points} timezone={report.series.timezone} granularity={report.series.granularity ?? "day"} />
      ) : (
        <p className="text-sm text-slate-500">
          No clicks in the last 7 days. Share a short link and its clicks show up here within seconds.
        </p>
      )}
    </Card>
  );
}

type TopRow = { link: { code: string | null; domain: string | null; url: string | null }; clicks: number };

export function TopLinksCard({ slug, report }: { slug: string; report: AnalyticsReport }) {
  const rows = ((report.panels.links?.data ?? []) as unknown as TopRow[]).filter((r) => r.link.code !== null).slice(0, 5);
  return (
    <Card title="Top links, last 7 days">
      {rows.length === 0 ? (
        <p className="text-sm text-slate-500">No clicks yet.</p>
      ) : (
        <table aria-label="Top links" className="w-full text-left text-sm">
          <thead className="sr-only">
            <tr>
              <th>Link</th>
              <th>Clicks</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((r) => (
              <tr key={`${r.link.domain}/${r.link.code}`}>
                <td className="max-w-0 py-2 pr-3">
                  <Link
                    href={`/w/${slug}/analytics?interval=7d&link=${encodeURIComponent(r.link.code!)}&domain=${encodeURIComponent(r.link.domain!)}`}
                    className="block truncate font-medium text-brand-700 hover:underline"
                  >
                    {r.link.domain}/{r.link.code}
                  </Link>
                  <span className="block truncate text-xs text-slate-500">{r.link.url}</span>
                </td>
                <td className="w-20 py-2 text-right tabular-nums">{fmt(r.clicks)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

export function RecentLinksCard({ slug, links }: { slug: string; links: LinkWithHost[] }) {
  return (
    <Card
      title="Recent links"
      actions={
        <Link href={`/w/${slug}/links`} className="text-sm font-medium text-brand-600 hover:underline">
          All links
        </Link>
      }
    >
      {links.length === 0 ? (
        <EmptyState title="No links yet">
          <Link className="font-medium text-brand-600 hover:underline" href={`/w/${slug}/links/new`}>
            Shorten your first link
          </Link>
        </EmptyState>
      ) : (
        <ul aria-label="Recent links" className="divide-y divide-slate-100 text-sm">
          {links.map((l) => (
            <li key={l.id} className="py-2">
              <Link href={`/w/${slug}/links/${l.id}`} className="block truncate font-medium text-brand-700 hover:underline">
                {l.host}/{l.code}
              </Link>
              <span className="block truncate text-xs text-slate-500">{l.url}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
