import { createTagRoute, listTagsRoute, unsupportedMethod } from "@/lib/api/tags";

// GET /api/v1/tags (all tags), POST /api/v1/tags (create). Everything happens in lib/api and lib/tags.
export const GET = listTagsRoute;
export const POST = createTagRoute;
export const PUT = unsupportedMethod(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
