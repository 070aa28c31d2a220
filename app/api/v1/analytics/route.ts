import { unsupportedMethod } from "@/lib/api/handler";
import { analyticsRoute } from "@/lib/api/analytics";

// GET /api/v1/analytics (lib/analytics/reports/service.ts)
export const GET = analyticsRoute;
export const POST = unsupportedMethod(["GET"]);
export const PUT = POST;
export const PATCH = POST;
export const DELETE = POST;
