import { analyticsExportRoute, analyticsRoute } from "./analytics.ts";
import { addDomainRoute, getDomainRoute, listDomainsRoute, updateDomainRoute, verifyDomainRoute } from "./domains.ts";
import { unknownPath, unsupportedMethod } from "./handler.ts";
import { bulkCreateLinksRoute, createLinkRoute, exportLinksRoute, linkRoutes, listLinksRoute } from "./links.ts";
import { openApiRoute } from "./openapi-route.ts";
import type { ApiPath } from "./paths.ts";
import { createTagRoute, deleteTagRoute, listTagsRoute, updateTagRoute } from "./tags.ts";

// THE table of /api/v1 endpoints: each path of paths.ts (its dynamic segments in brackets, as the
// route files under app/api/v1 are named) with the route handler of each method. Both doors of the process
// serve these same functions: the route files under app/api/v1 export them for Next.js, and
// server.ts answers them itself without Next's request machinery (lib/api/lane.ts). A test
// (tests/unit/api-endpoints.test.ts) holds every route file to its row here.

export type RouteHandler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response> | Response;
export type ApiMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type Endpoint = Record<ApiMethod, RouteHandler>;

/** `handlers`, and every other method answered as unsupported (naming the methods there are). */
function endpoint(handlers: Partial<Endpoint>): Endpoint {
  const allowed = Object.keys(handlers);
  const unsupported = unsupportedMethod(allowed);
  return { GET: unsupported, POST: unsupported, PUT: unsupported, PATCH: unsupported, DELETE: unsupported, ...handlers };
}

const link = linkRoutes();
// "bulk" and "export" are static paths that are also link codes: their other methods serve that link
const bulkLink = linkRoutes("bulk");
const exportLink = linkRoutes("export");

export const API_ENDPOINTS = {
  "/api/v1/links": endpoint({ GET: listLinksRoute, POST: createLinkRoute }),
  "/api/v1/links/bulk": endpoint({ POST: bulkCreateLinksRoute, GET: bulkLink.GET, PATCH: bulkLink.PATCH, DELETE: bulkLink.DELETE }),
  "/api/v1/links/export": endpoint({ GET: exportLinksRoute, PATCH: exportLink.PATCH, DELETE: exportLink.DELETE }),
  "/api/v1/links/[code]": endpoint({ GET: link.GET, PATCH: link.PATCH, DELETE: link.DELETE }),
  "/api/v1/tags": endpoint({ GET: listTagsRoute, POST: createTagRoute }),
  "/api/v1/tags/[id]": endpoint({ PATCH: updateTagRoute, DELETE: deleteTagRoute }),
  "/api/v1/analytics": endpoint({ GET: analyticsRoute }),
  "/api/v1/analytics/export": endpoint({ GET: analyticsExportRoute }),
  "/api/v1/domains": endpoint({ GET: listDomainsRoute, POST: addDomainRoute }),
  "/api/v1/domains/[host]": endpoint({ GET: getDomainRoute, PATCH: updateDomainRoute }),
  "/api/v1/domains/[host]/verify": endpoint({ POST: verifyDomainRoute }),
  "/api/v1/openapi.json": { GET: openApiRoute },
} satisfies Record<ApiPath, Partial<Endpoint>>;

export type EndpointPath = keyof typeof API_ENDPOINTS;

/** Any other path under /api/v1 (app/api/v1/[[...path]]): 401 without a valid key, else 404. */
export const UNKNOWN_API_PATH: Endpoint = {
  GET: unknownPath,
  POST: unknownPath,
  PUT: unknownPath,
  PATCH: unknownPath,
  DELETE: unknownPath,
};
