import { API_ENDPOINTS } from "@/lib/api/endpoints";

// GET /api/v1/links/export (CSV). PATCH and DELETE treat "export" as a link code, like /links/{code}.
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
const endpoint = API_ENDPOINTS["/api/v1/links/export"];
export const GET = endpoint.GET;
export const POST = endpoint.POST;
export const PUT = endpoint.PUT;
export const PATCH = endpoint.PATCH;
export const DELETE = endpoint.DELETE;
