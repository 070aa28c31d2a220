import { bulkCreateLinksRoute, linkRoutes, unsupportedMethod } from "@/lib/api/links";

// POST /api/v1/links/bulk. The other methods treat "bulk" as a link code, like /links/{code}.
const single = linkRoutes("bulk");
export const POST = bulkCreateLinksRoute;
export const GET = single.GET;
export const PATCH = single.PATCH;
export const DELETE = single.DELETE;
export const PUT = unsupportedMethod(["POST", "GET", "PATCH", "DELETE"]);
