// The operations endpoints: /healthz, /readyz and /metrics. server.ts answers them before anything
// else, on every host (lib/http/operations.ts), so they are reserved link codes on every domain
// (lib/links/short-code.ts RESERVED_PATHS) and never codes to the short-link router, custom domains
// included (lib/redirects/routing.ts).

export type OperationsPath = "healthz" | "readyz" | "metrics";

export const OPERATIONS_PATHS: ReadonlySet<string> = new Set<OperationsPath>(["healthz", "readyz", "metrics"]);

/** The endpoint a request target names ("/healthz", "/healthz/", "/healthz?x=1"), or null. */
export function operationsPathOf(url: string | undefined): OperationsPath | null {
  // every request passes here first: most are told apart by their second character alone
  if (!url || url.charCodeAt(0) !== 47 /* / */) return null;
  const c = url.charCodeAt(1);
  if (c !== 104 /* h */ && c !== 114 /* r */ && c !== 109 /* m */) return null;
  const q = url.indexOf("?");
  let path = q === -1 ? url.slice(1) : url.slice(1, q);
  if (path.endsWith("/")) path = path.slice(0, -1);
  return OPERATIONS_PATHS.has(path) ? (path as OperationsPath) : null;
}

/**
 * Caddy's on-demand TLS question, `GET /tls/ask?domain=<host>` (lib/domains/tls-ask.ts): server.ts
 * answers it after the operations endpoints, on every host, so `tls` is a reserved link code too.
 */
export const TLS_ASK_SEGMENT = "tls";

/** The request target is /tls/ask (with any query). */
export function isTlsAskPath(url: string | undefined): boolean {
  if (!url || url.charCodeAt(1) !== 116 /* t */) return false;
  const q = url.indexOf("?");
  return (q === -1 ? url : url.slice(0, q)) === "/tls/ask";
}
