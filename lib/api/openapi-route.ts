import { buildOpenApiDocument } from "./openapi.ts";

/** GET /api/v1/openapi.json: the OpenAPI document, built from the routes' zod schemas (openapi.ts). */
export function openApiRoute(): Response {
  return Response.json(buildOpenApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
