import { UNKNOWN_API_PATH } from "@/lib/api/endpoints";

// Any other /api/v1 path: 404 not_found (after authentication and the limiter, like every API answer).
// The handlers are lib/api/endpoints.ts UNKNOWN_API_PATH, which server.ts also serves.
export const GET = UNKNOWN_API_PATH.GET;
export const POST = UNKNOWN_API_PATH.POST;
export const PUT = UNKNOWN_API_PATH.PUT;
export const PATCH = UNKNOWN_API_PATH.PATCH;
export const DELETE = UNKNOWN_API_PATH.DELETE;
