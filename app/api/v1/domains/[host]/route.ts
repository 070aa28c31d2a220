import { API_ENDPOINTS } from "@/lib/api/endpoints";

// GET /api/v1/domains/{host} (read), PATCH /api/v1/domains/{host} (app links, root and not-found URLs).
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
const endpoint = API_ENDPOINTS["/api/v1/domains/[host]"];
export const GET = endpoint.GET;
export const POST = endpoint.POST;
export const PUT = endpoint.PUT;
export const PATCH = endpoint.PATCH;
export const DELETE = endpoint.DELETE;
