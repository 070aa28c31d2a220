import { deleteTagRoute, unsupportedMethod, updateTagRoute } from "@/lib/api/tags";

// PATCH /api/v1/tags/{id} (rename, recolour), DELETE /api/v1/tags/{id} (removes it from its links).
export const PATCH = updateTagRoute;
export const DELETE = deleteTagRoute;
export const GET = unsupportedMethod(["PATCH", "DELETE"]);
export const PUT = GET;
export const POST = GET;
