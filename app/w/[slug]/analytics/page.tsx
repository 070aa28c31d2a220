import type { Metadata } from "next";
import { AnalyticsView } from "@/components/analytics/analytics-view";
import { PageHeader } from "@/components/ui";
import { analyticsReport, pageParams } from "@/lib/analytics/reports/report";
import { workspacePage } from "@/lib/actions/workspace";

export const metadata: Metadata = { title: "Analytics" };

export default async function AnalyticsPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  const { workspace } = await workspacePage(slug);
  const report = await analyticsReport(workspace, pageParams(await searchParams));
  return (
    <>
      <PageHeader
        title="Analytics"
        description="Clicks and unique visitors of your links. Bots are redirected but not counted; click a row to filter."
      />
      <AnalyticsView report={report} basePath={`/w/${slug}/analytics`} exportPath={`/w/${slug}/analytics/export`} />
    </>
  );
}
