import fs from "node:fs";
import path from "node:path";
import { OPERATIONS_PATHS } from "../http/operations-paths.ts";

// Which requests are short-link requests. Decided from the Host header and the path alone, without
// the database, because it runs for every request the server gets (the custom-domain table is
// mirrored in memory, see cache.ts).

const CODE_PATH = /^\/([A-Za-z0-9_-]{1,40})(?:\/(.*))?$/s;

/** The code in a request path ("/abc", "/abc/", "/abc?x=1"), or null when the path is not one segment. */
export function codeOf(url: string): string | null {
  const p = linkPathOf(url);
  return p && p.rest === null ? p.code : null;
}

/**
 * The code and what follows it: "/abc/x/y?q" -> { code: "abc", rest: "x/y" } (raw, as sent; the
 * link's forwardPath decides whether it is served, lib/redirects/forward.ts); "/abc" and "/abc/"
 * -> rest null. Null when the first segment is not code-shaped.
 */
export function linkPathOf(url: string): { code: string; rest: string | null } | null {
  const q = url.indexOf("?");
  const m = CODE_PATH.exec(q === -1 ? url : url.slice(0, q));
  return m ? { code: m[1], rest: m[2] || null } : null;
}

/**
 * First path segments of the routes under app/ (route groups looked through; dynamic, private and
 * parallel-route folders skipped). On a host shared with the app these belong to Next even when an
 * app route was added after RESERVED_PATHS was last updated.
 */
export function appTopLevelSegments(appDir: string): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const name = e.name;
      if (e.isDirectory()) {
        if (name.startsWith("(") && name.endsWith(")")) walk(path.join(dir, name));
        else if (!name.startsWith("[") && !name.startsWith("_") && !name.startsWith("@")) out.add(name);
      } else {
        // metadata files: robots.ts -> /robots.txt, icon.png -> /icon.png, sitemap.ts -> /sitemap.xml
        const base = name.replace(/\.(tsx?|jsx?|mjs)$/, "");
        if (base === "robots") out.add("robots.txt");
        else if (base === "sitemap") out.add("sitemap.xml");
        else if (base === "manifest") out.add("manifest.webmanifest");
        else if (/^(icon|apple-icon|opengraph-image|twitter-image)\d*$/.test(base)) out.add(base);
      }
    }
  };
  walk(appDir);
  return out;
}

/**
 * A visit from a QR code the app drew: those encode the short URL with `?qr=1` (lib/analytics/ingest/qr.ts).
 * The redirect never passes its query string on, so the marker goes no further.
 */
export function isQrVisit(url: string | undefined): boolean {
  const q = url?.indexOf("?") ?? -1;
  if (q === -1) return false;
  // most queries (utm_*, forwarded parameters) cannot hold the marker: no parsing for them
  if (!url!.includes("qr=", q) && !url!.includes("%", q)) return false;
  return new URLSearchParams(url!.slice(q + 1)).get("qr") === "1";
}

/** Lower-cased, without a trailing dot on the name: "Short.Test.:8080" -> "short.test:8080". */
export function normalizeHost(hostHeader: string | undefined): string {
  if (!hostHeader) return "";
  const h = hostHeader.trim().toLowerCase();
  const colon = h.lastIndexOf(":");
  if (colon > 0 && !h.endsWith("]")) {
    const name = h.slice(0, colon);
    return (name.endsWith(".") ? name.slice(0, -1) : name) + h.slice(colon);
  }
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

export function withoutPort(host: string): string {
  const colon = host.lastIndexOf(":");
  return colon > 0 && !host.endsWith("]") ? host.slice(0, colon) : host;
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Both names reach this machine's loopback (localhost, 127.0.0.1, [::1]): the same host in development. */
export function bothLoopback(a: string, b: string): boolean {
  return LOOPBACK_NAMES.has(a) && LOOPBACK_NAMES.has(b);
}

/**
 * The request's host is SHORT_DOMAIN: the same name (any port when SHORT_DOMAIN names none), or,
 * for a loopback SHORT_DOMAIN such as the default localhost:3000, another loopback name on the same
 * port, so http://127.0.0.1:3000/<code> works like http://localhost:3000/<code>.
 */
export function isShortDomainHost(host: string, shortDomain: string): boolean {
  if (host === shortDomain) return true;
  const name = withoutPort(host);
  const shortName = withoutPort(shortDomain);
  if (shortName === shortDomain) return name === shortDomain;
  return bothLoopback(shortName, name) && host.slice(name.length) === shortDomain.slice(shortName.length);
}

export type Route =
  /** not a short-link request: Next.js answers */
  | { kind: "next" }
  /** a short link: domainKey 0 = the default short domain, else the custom domain's id; rest: what follows /<code>/ */
  | { kind: "link"; domainKey: number; code: string; rest?: string }
  /** a code-shaped path on a host that serves no short links (the app's own host, an IP, a stranger) */
  | { kind: "unknown_host" }
  /** a custom-domain path that cannot be a code ("/", "/x.png") */
  | { kind: "not_found" }
  | { kind: "method_not_allowed" };

export type RoutingContext = {
  /** SHORT_DOMAIN, normalised */
  shortDomain: string;
  /** verified, active custom domain -> its id (hosts are stored without a port) */
  customDomainId: (host: string) => number | undefined;
  /** true for a first path segment that belongs to the app on a shared host */
  isAppPath: (segment: string) => boolean;
};

const NEXT: Route = { kind: "next" };
const UNKNOWN_HOST: Route = { kind: "unknown_host" };
const NOT_FOUND: Route = { kind: "not_found" };
const METHOD_NOT_ALLOWED: Route = { kind: "method_not_allowed" };

/**
 * - A verified, active custom domain serves only short links: every path is answered here, except
 *   the operations endpoints (/healthz, /readyz, /metrics), which are never codes.
 * - SHORT_DOMAIN (possibly shared with the app): paths whose first segment is code-shaped and not
 *   an app path are links (/<code>/<rest> too: forwardPath); everything else goes to Next, so the
 *   app keeps working on that host.
 * - Any other host (APP_URL's host when it differs, an IP address, an unknown name): code-shaped
 *   GET/HEAD paths get the lean 404 ("no short links on this host"); the rest goes to Next, so the
 *   app answers on whatever name or address it is reached by.
 * POST is accepted on short-link hosts only (the password form posts to the link's own URL).
 */
export function routeRequest(
  method: string | undefined,
  hostHeader: string | undefined,
  url: string | undefined,
  ctx: RoutingContext,
): Route {
  const host = normalizeHost(hostHeader);
  const linkPath = linkPathOf(url ?? "/");
  const code = linkPath?.code ?? null;
  const rest = linkPath?.rest ?? null;
  const readOnly = method === "GET" || method === "HEAD";
  const domainId = ctx.customDomainId(withoutPort(host));
  const link = (domainKey: number): Route =>
    rest === null ? { kind: "link", domainKey, code: code! } : { kind: "link", domainKey, code: code!, rest };
  if (domainId !== undefined) {
    if (!readOnly && method !== "POST") return METHOD_NOT_ALLOWED;
    if (code !== null && rest === null && OPERATIONS_PATHS.has(code)) return NEXT; // server.ts answers them first
    return code ? link(domainId) : NOT_FOUND;
  }
  if (code === null || ctx.isAppPath(code)) return NEXT;
  if (isShortDomainHost(host, ctx.shortDomain)) return readOnly || method === "POST" ? link(0) : NEXT;
  // other hosts: only one-segment paths are short-link-shaped (the app's deeper paths stay Next's)
  return readOnly && rest === null ? UNKNOWN_HOST : NEXT;
}
