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
  origin: string;
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
  return { base: u.href, query, fragment, origin: u.origin };
}

// control characters and spaces (the URL parser drops tabs and newlines, which could join dots)
const UNSAFE = /[\x00-\x20\x7f]/;

/**
 * `rest` as path segments to append, or null when it is refused: a "." or ".." segment (also as
 * %2e), a malformed escape, or a control character. Backslashes, which URL parsers read as
 * slashes, are encoded.
 */
export function safeRest(rest: string): string | null {
  if (UNSAFE.test(rest)) return null;
  const segments = rest.replaceAll("\\", "%5C").split("/");
  for (const s of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(s);
    } catch {
      return null;
    }
    if (decoded === "." || decoded === "..") return null;
  }
  return segments.join("/");
}

/**
 * The chosen URL with the visit's forwarding applied; null when the result is refused (a path that
 * is not safe, or anything that would leave the destination's origin).
 */
export function applyForwarding(parts: DestinationParts, query: VisitQuery | null, rest: string | null): string | null {
  let base = parts.base;
  if (rest) {
    const safe = safeRest(rest.replace(/^\/+/, ""));
    if (safe === null) return null;
    if (safe) base = (base.endsWith("/") ? base : base + "/") + safe;
  }
  let pairs: string[];
  if (query && query.params.length) {
    const replaced = new Set(query.params.map((p) => p.name));
    pairs = parts.query.filter((p) => !replaced.has(p.name)).map((p) => p.raw);
    for (const p of query.params) pairs.push(p.raw.replaceAll("#", "%23"));
  } else pairs = parts.query.map((p) => p.raw);
  const joined = base + (pairs.length ? "?" + pairs.join("&") : "") + parts.fragment;
  try {
    const u = new URL(joined);
    return u.origin === parts.origin ? u.href : null;
  } catch {
    return null;
  }
}
