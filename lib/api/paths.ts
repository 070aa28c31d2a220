// Every /api/v1 endpoint path, its dynamic segments in brackets as the route files under app/api/v1
// are named. THE list: the endpoint table (endpoints.ts) has exactly one row per path (its type
// says so) and the request metrics label each request with its path (metrics.ts). Nothing imported
// here, so both can use it.

export const API_PATHS = [
  "/api/v1/links",
  "/api/v1/links/bulk",
  "/api/v1/links/export",
  "/api/v1/links/[code]",
  "/api/v1/tags",
  "/api/v1/tags/[id]",
  "/api/v1/analytics",
  "/api/v1/analytics/export",
  "/api/v1/domains",
  "/api/v1/domains/[host]",
  "/api/v1/domains/[host]/verify",
  "/api/v1/openapi.json",
] as const;

export type ApiPath = (typeof API_PATHS)[number];
