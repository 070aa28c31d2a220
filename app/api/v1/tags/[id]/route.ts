import { API_ENDPOINTS } from "@/lib/api/endpoints";

// PATCH /api/v1/tags/{id} (rename, recolour), DELETE /api/v1/tags/{id} (removes it from its links).
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
const endpoint = API_ENDPOINTS["/api/v1/tags/[id]"];
export const GET = endpoint.GET;
export const POST = endpoint.POST;
export const PUT = endpoint.PUT;
export const PATCH = endpoint.PATCH;
export const DELETE = endpoint.DELETE;
