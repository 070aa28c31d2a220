import { API_ENDPOINTS } from "@/lib/api/endpoints";

// POST /api/v1/domains/{host}/verify: checks the TXT record; `verified` in the answer tells the outcome.
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
const endpoint = API_ENDPOINTS["/api/v1/domains/[host]/verify"];
export const GET = endpoint.GET;
export const POST = endpoint.POST;
export const PUT = endpoint.PUT;
export const PATCH = endpoint.PATCH;
export const DELETE = endpoint.DELETE;
