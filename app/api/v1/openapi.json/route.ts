import { API_ENDPOINTS } from "@/lib/api/endpoints";

// The OpenAPI 3.1 document of /api/v1 (public: no key needed), generated from the routes' zod schemas.
// The handlers are THE table's row for this path (lib/api/endpoints.ts), which server.ts also serves.
export const dynamic = "force-dynamic";

const endpoint = API_ENDPOINTS["/api/v1/openapi.json"];
export const GET = endpoint.GET;
