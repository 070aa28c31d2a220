import { unsupportedMethod } from "@/lib/api/handler";
import { analyticsExportRoute } from "@/lib/api/analytics";

// GET /api/v1/analytics/export: CSV of the raw click events (lib/analytics/reports/export.ts)
export const GET = analyticsExportRoute;
export const POST = unsupportedMethod(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
