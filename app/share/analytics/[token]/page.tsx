import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AnalyticsView } from "@/components/analytics/analytics-view";
import { analyticsReport } from "@/lib/analytics/reports/report";
import { findSharedView } from "@/lib/analytics/saved-views";
import { keptSharedReport } from "@/lib/analytics/shared-report-cache";
import { ServiceError } from "@/lib/errors";

// A saved Analytics view shared read-only (lib/analytics/saved-views.ts): no sign-in, the view's
// own parameters only (the URL's query is never read, so it cannot widen the view), no workspace
// navigation and nothing that links into the workspace. An unknown or revoked token is 404.

export const metadata: Metadata = { title: "Shared analytics", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

export default async function SharedAnalyticsPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const shared = await findSharedView(token);
  if (!shared) notFound();
  // strict: parameters that no longer answer (the view's link was deleted) are a 404, never the workspace's defaults
  // kept a minute per view (shared-report-cache.ts): the page is public, with no rate budget in front of it
  const compute = () => analyticsReport(shared.workspace, shared.view.params, { strict: true });
  const report = await keptSharedReport(shared.view, shared.workspace, compute).catch((e: unknown) => {
    if (e instanceof ServiceError) notFound();
    throw e;
  });
  return (
    <main id="main" tabIndex={-1} className="mx-auto max-w-5xl px-4 py-8">
      <header className="mb-6">
        <p className="text-sm text-slate-600">Shared analytics · read-only</p>
        <h1 className="text-2xl font-semibold tracking-tight">{shared.view.name}</h1>
      </header>
      <AnalyticsView report={report} basePath={`/share/analytics/${token}`} exportPath={null} title={shared.view.name} readOnly />
    </main>
  );
}
