import { API_ENDPOINTS } from "@/lib/api/endpoints";

// GET /api/v1/domains (list), POST /api/v1/domains (add, pending). Everything happens in lib/api and lib/domains.
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
const endpoint = API_ENDPOINTS["/api/v1/domains"];
export const GET = endpoint.GET;
export const POST = endpoint.POST;
export const PUT = endpoint.PUT;
export const PATCH = endpoint.PATCH;
export const DELETE = endpoint.DELETE;
