import { exportLinksRoute, linkRoutes, unsupportedMethod } from "@/lib/api/links";

// GET /api/v1/links/export (CSV). PATCH and DELETE treat "export" as a link code, like /links/{code}.
const single = linkRoutes("export");
export const GET = exportLinksRoute;
export const PATCH = single.PATCH;
export const DELETE = single.DELETE;
export const POST = unsupportedMethod(["GET", "PATCH", "DELETE"]);
export const PUT = POST;
