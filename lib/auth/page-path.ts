import type { IncomingMessage } from "node:http";

// The path and query of the page a request is for, so a signed-out visitor sent to the login page
// comes back to exactly that page (`/login?next=...`). Server components cannot read their own URL,
// so server.ts stamps every request it hands to Next with this header, overwriting whatever the
// client sent. A client-side navigation asks for the page's RSC payload at the page's own URL plus
// Next's cache-busting `_rsc` parameter, which is dropped here. The value is still only a hint:
// the login page follows it only through safeNextPath (lib/auth/next-path.ts).

export const PAGE_PATH_HEADER = "x-linkhop-page-path";

/** `url` (a request target) without Next's `_rsc` parameter. */
export function pagePathOf(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  if (!params.has("_rsc")) return url;
  params.delete("_rsc");
  const rest = params.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}

export function stampPagePath(req: IncomingMessage): void {
  req.headers[PAGE_PATH_HEADER] = pagePathOf(req.url ?? "/");
}

/** The stamped path; undefined outside server.ts. */
export function pagePathFrom(headers: Pick<Headers, "get">): string | undefined {
  return headers.get(PAGE_PATH_HEADER) || undefined;
}
