import { metrics } from "../metrics/index.ts";
import { API_PATHS } from "./paths.ts";

// What the /api/v1 wrapper (handler.ts) records per request: the route as its path pattern (a
// link's code or a tag's id in a label would make one time series per link), the method and the
// status, and the time to the answer's headers.

/** Each endpoint path as a pattern ([code] matches one segment) and its label ("/api/v1/links/{code}"); static paths first. */
const ROUTES: [RegExp, string][] = [...API_PATHS]
  .sort((a, b) => Number(a.includes("[")) - Number(b.includes("[")))
  .map((path) => [new RegExp(`^${path.replace(/\./g, "\\.").replace(/\[\w+\]/g, "[^/]+")}/?$`), path.replace(/\[(\w+)\]/g, "{$1}")]);

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The route pattern of an /api/v1 path; "other" for a path that is no endpoint. */
export function apiRouteLabel(pathname: string): string {
  for (const [pattern, label] of ROUTES) if (pattern.test(pathname)) return label;
  return "other";
}

/** Records one answered request; `started` is a performance.now() reading taken when it came in. */
export function recordApiRequest(req: Request, status: number, started: number): void {
  let pathname = "";
  try {
    pathname = new URL(req.url).pathname;
  } catch {
    // an unparsable URL is "other"
  }
  const route = apiRouteLabel(pathname);
  const method = METHODS.has(req.method) ? req.method : "other";
  const m = metrics().api;
  m.requests.inc({ method, route, status: String(status) });
  m.duration.observe({ method, route }, (performance.now() - started) / 1000);
}

export function recordRateLimited(): void {
  metrics().api.rateLimited.inc();
}
