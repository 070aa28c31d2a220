import { getDomainRoute, unsupportedMethod, updateDomainRoute } from "@/lib/api/domains";

// GET /api/v1/domains/{host} (read), PATCH /api/v1/domains/{host} (app links, root and not-found URLs).
export const GET = getDomainRoute;
export const PATCH = updateDomainRoute;
export const PUT = unsupportedMethod(["GET", "PATCH"]);
export const POST = PUT;
export const DELETE = PUT;
