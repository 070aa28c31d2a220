import { buildOpenApiDocument } from "@/lib/api/openapi";

// The OpenAPI 3.1 document of /api/v1 (public: no key needed), generated from the routes' zod schemas.
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json(buildOpenApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
