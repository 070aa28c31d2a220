import type { Metadata } from "next";
import { AnalyticsView } from "@/components/analytics/analytics-view";
import { PageHeader } from "@/components/ui";
import { analyticsReport, isPanel, pageParams, PANEL_ROWS_ALL } from "@/lib/analytics/reports/report";
import { listSavedViews } from "@/lib/analytics/saved-views";
import { workspacePage } from "@/lib/actions/workspace";
import { SavedViews } from "./saved-views";

export const metadata: Metadata = { title: "Analytics" };

export default async function AnalyticsPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  const { workspace, can } = await workspacePage(slug);
  const search = await searchParams;
  // "View all" of one panel: that panel alone, with as many rows as the API answers
  const all = isPanel(search.all) ? search.all : null;
  const [report, views] = await Promise.all([
    // the totals and the series first; the 14 panels stream in as their queries answer
    analyticsReport(workspace, pageParams(search), all ? { panels: [all], rows: PANEL_ROWS_ALL } : { streamPanels: true }),
    listSavedViews(workspace),
  ]);
  return (
    <>
      <PageHeader
        title="Analytics"
        description="Clicks and unique visitors of your links. Bots are redirected but not counted; click a row to filter."
      />
      <div className="space-y-6">
        <AnalyticsView report={report} basePath={`/w/${slug}/analytics`} exportPath={`/w/${slug}/analytics/export`} viewAll={all} />
        <SavedViews
          slug={slug}
          params={report.params}
          views={views.map((v) => ({ id: v.id, name: v.name, params: v.params, shared: v.shared }))}
          canSave={can("analytics.views")}
          canShare={can("analytics.share")}
        />
      </div>
    </>
  );
}
