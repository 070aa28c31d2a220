import { API_ENDPOINTS } from "@/lib/api/endpoints";

// POST /api/v1/links (create), GET /api/v1/links (list). Everything happens in lib/api and lib/links.
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
const endpoint = API_ENDPOINTS["/api/v1/links"];
export const GET = endpoint.GET;
export const POST = endpoint.POST;
export const PUT = endpoint.PUT;
export const PATCH = endpoint.PATCH;
export const DELETE = endpoint.DELETE;
