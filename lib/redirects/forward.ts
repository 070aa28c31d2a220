import type { VisitQuery } from "./visit-query.ts";

// Forwarding (CONTRACT.md "Link routing"): the visit's query merged into the chosen URL
// (forwardQuery) and /<code>/<rest> joined to its path (forwardPath). Destinations are split once
// when a link is compiled (decide.ts); a visit only joins strings, then the result is parsed once
// and must keep the destination's origin. Dot segments (also percent-encoded) are refused, so a
// visit cannot climb out of the destination's path either; encoded slashes stay encoded, inside
// their segment.

export type DestinationParts = {
  /** scheme, host and path, without query or fragment */
  base: string;
  /** the destination's own query parameters: raw text and decoded name */
  query: { name: string; raw: string }[];
  /** "" or "#..." */
  fragment: string;
  /** the href up to the path's first "/" ("https://user@host:8443/"): every href on the same origin, with the same userinfo, starts with it */
  originPrefix: string;
};

function decodeName(s: string): string {
  try {
    return decodeURIComponent(s.replaceAll("+", " "));
  } catch {
    return s;
  }
}

export function forwardParts(url: string): DestinationParts {
  const u = new URL(url);
  const fragment = u.hash;
  const search = u.search.slice(1);
  u.hash = "";
  u.search = "";
  const query = search
    ? search
        .split("&")
        .filter(Boolean)
        .map((raw) => ({ raw, name: decodeName(raw.includes("=") ? raw.slice(0, raw.indexOf("=")) : raw) }))
    : [];
  const originPrefix = u.href.slice(0, u.href.indexOf("/", u.protocol.length + 2) + 1);
  return { base: u.href, query, fragment, originPrefix };
}

// Characters the WHATWG URL parser leaves untouched in a special scheme's path and query (outside
// its percent-encode sets): text made only of them is already what new URL(...).href would give.
export const KEPT_IN_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
export const KEPT_IN_QUERY = /^[A-Za-z0-9\-._~!$&()*+,;=:@/%?]*$/;

// control characters and spaces (the URL parser drops tabs and newlines, which could join dots)
const UNSAFE = /[\x00-\x20\x7f]/;

/**
 * `rest` as path segments to append, or null when it is refused: a "." or ".." segment (also as
 * %2e), a malformed escape, or a control character. Backslashes, which URL parsers read as
 * slashes, are encoded.
 */
export function safeRest(rest: string): string | null {
  if (UNSAFE.test(rest)) return null;
  const path = rest.includes("\\") ? rest.replaceAll("\\", "%5C") : rest;
  // a dot segment needs a "." (or its escape, which needs a "%")
  if (!path.includes(".") && !path.includes("%")) return path;
  for (const s of path.split("/")) {
    let decoded = s;
    if (s.includes("%")) {
      try {
        decoded = decodeURIComponent(s);
      } catch {
        return null;
      }
    }
    if (decoded === "." || decoded === "..") return null;
  }
  return path;
}

/**
 * The chosen URL with the visit's forwarding applied; null when the result is refused (a path that
 * is not safe, or anything that would leave the destination's origin).
 */
export function applyForwarding(parts: DestinationParts, query: VisitQuery | null, rest: string | null): string | null {
  let base = parts.base;
  if (rest) {
    let from = 0;
    while (rest.charCodeAt(from) === 47 /* "/" */) from++;
    const safe = safeRest(from ? rest.slice(from) : rest);
    if (safe === null) return null;
    if (safe) base = (base.endsWith("/") ? base : base + "/") + safe;
  }
  let pairs: string[];
  if (query && query.params.length) {
    pairs = parts.query.filter((d) => !query.has(d.name)).map((d) => d.raw);
    for (const p of query.params) pairs.push(p.raw.includes("#") ? p.raw.replaceAll("#", "%23") : p.raw);
  } else pairs = parts.query.map((p) => p.raw);
  const search = pairs.length ? "?" + pairs.join("&") : "";
  const joined = base + search + parts.fragment;
  // The common case needs no parse: the base is an href already, and a path and query made only of
  // characters the URL parser keeps as they are come out of it unchanged, on the same origin
  // (tests/unit/redirect-forward-fast.test.ts holds this against the parser).
  if ((!rest || KEPT_IN_PATH.test(rest)) && (!search || KEPT_IN_QUERY.test(search))) return joined;
  try {
    const href = new URL(joined).href;
    return href.startsWith(parts.originPrefix) ? href : null;
  } catch {
    return null;
  }
}
