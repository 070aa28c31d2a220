import { exportClicks } from "@/lib/analytics/reports/export";
import { pageParams } from "@/lib/analytics/reports/report";
import { analyticsExportQuerySchema } from "@/lib/analytics/reports/schemas";
import { ServiceError, parseInput } from "@/lib/errors";
import { workspacePage } from "@/lib/actions/workspace";

// The Analytics page's CSV download: the same export as GET /api/v1/analytics/export, for a signed-in
// member, with the page's filters.
export async function GET(req: Request, { params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace } = await workspacePage(slug);
  const search = Object.fromEntries(new URL(req.url).searchParams);
  try {
    const csv = await exportClicks(workspace, parseInput(analyticsExportQuerySchema, pageParams(search)));
    return new Response(csv.stream, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${csv.fileName}"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (e) {
    if (e instanceof ServiceError)
      return new Response(e.message, {
        status: e.code === "not_found" ? 404 : e.code === "rate_limit" ? 429 : 400,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      });
    throw e;
  }
}
