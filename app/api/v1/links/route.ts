import { createLinkRoute, listLinksRoute, unsupportedMethod } from "@/lib/api/links";

// POST /api/v1/links (create), GET /api/v1/links (list). Everything happens in lib/api and lib/links.
export const POST = createLinkRoute;
export const GET = listLinksRoute;
export const PUT = unsupportedMethod(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
