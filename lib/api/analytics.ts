import { analytics } from "../analytics/reports/service.ts";
import { exportClicks } from "../analytics/reports/export.ts";
import { analyticsExportQuerySchema, analyticsQuerySchema } from "../analytics/reports/schemas.ts";
import { apiRoute } from "./handler.ts";

// GET /api/v1/analytics and GET /api/v1/analytics/export: parse, call lib/analytics, answer.

export const analyticsRoute = apiRoute({
  query: analyticsQuerySchema,
  repeatable: ["tag"],
  run: async ({ workspace, query }) => ({ status: 200, body: await analytics(workspace, query) }),
});

export const analyticsExportRoute = apiRoute({
  query: analyticsExportQuerySchema,
  repeatable: ["tag"],
  run: async ({ workspace, query }) => {
    const csv = await exportClicks(workspace, query);
    return {
      status: 200,
      stream: csv.stream,
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${csv.fileName}"`,
        "Cache-Control": "no-store",
      },
    };
  },
});
