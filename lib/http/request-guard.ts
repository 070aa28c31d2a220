import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { isApiUrl } from "./api-url.ts";

// Requests Next.js cannot take as they are and would answer with a bare 500 (and a stack trace in
// the log): methods it does not route (TRACE, PROPFIND, ...), a request target that is not a path
// ("OPTIONS *", "GET *"), paths with percent-escapes that are not UTF-8 ("/w/%E0%A4%A/links"), and
// a Host header that is not a host ("a b", "localhost:99999"): pages build URLs from it (Auth.js).
// server.ts answers them here, before Next, with a small 4xx. API paths with bad escapes are
// repaired instead (lib/http/api-url.ts), so the API's own rules (401 first) still answer them.

/** The methods the app answers (pages, route handlers, server actions). */
export const APP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const METHODS = new Set<string>(APP_METHODS);
const ALLOW = APP_METHODS.join(", ");

export type EarlyAnswer = { status: number; headers: Record<string, string>; body: string };

function answer(status: number, api: boolean, message: string, extra: Record<string, string> = {}): EarlyAnswer {
  // API paths answer in the API's error shape; app paths get plain text.
  const body = api ? JSON.stringify({ error: "validation", messages: [message] }) : `${message}\n`;
  return {
    status,
    headers: { "Content-Type": api ? "application/json" : "text/plain; charset=utf-8", "Cache-Control": "no-store", ...extra },
    body,
  };
}

/** The answer for a request Next must not see, or null to pass it on. */
export function earlyAnswer(
  req: Pick<IncomingMessage, "method" | "url"> & { headers?: IncomingHttpHeaders; rawHeaders?: string[] },
): EarlyAnswer | null {
  const url = req.url ?? "";
  const method = req.method ?? "";
  if (!url.startsWith("/")) {
    // "OPTIONS *" asks what the server as a whole supports.
    if (url === "*" && method === "OPTIONS") return { status: 204, headers: { Allow: ALLOW }, body: "" };
    return answer(400, false, "Bad request: the request target must be a path.");
  }
  const api = isApiUrl(url);
  // RFC 9112 3.2: a Host header with an invalid value, or more than one, gets a 400. Node itself
  // answers a missing one (HTTP/1.1) but keeps the first of several, which a proxy may read otherwise.
  if (req.headers && "host" in req.headers && !isValidHostHeader(req.headers.host)) {
    return answer(400, api, "Bad request: the Host header is not a valid host name and port.");
  }
  if (req.rawHeaders && req.rawHeaders.filter((v, i) => i % 2 === 0 && v.toLowerCase() === "host").length > 1) {
    return answer(400, api, "Bad request: more than one Host header.");
  }
  if (!METHODS.has(method)) return answer(405, api, `${method} is not supported; use ${ALLOW}.`, { Allow: ALLOW });
  if (!api && !decodablePath(url)) return answer(400, false, "Bad request: the address contains an invalid percent-escape.");
  return null;
}

function decodablePath(url: string): boolean {
  const q = url.indexOf("?");
  try {
    decodeURIComponent(q === -1 ? url : url.slice(0, q));
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a Host header value is a host with an optional port, as the WHATWG URL parser (which the
 * app and its libraries build request URLs with) accepts it: no spaces or other forbidden
 * characters, a port of at most 65535, and nothing that would make it a user name or a path.
 */
export function isValidHostHeader(host: string | undefined): boolean {
  if (!host || /[\s/\\?#@]/.test(host)) return false;
  try {
    return new URL(`http://${host}`).host !== "";
  } catch {
    return false;
  }
}
