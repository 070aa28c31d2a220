// Request paths under /api/v1 that Next's router cannot take as they are (a stray "%", percent-
// encoded bytes that are not UTF-8, "." or ".." segments, doubled or trailing slashes) would get a
// bare 500 or a 308 redirect from Next before any API code runs. The server rewrites such a path
// into an equivalent one Next can route, so the API wrapper still answers it (401, then 404 or 400
// like any other request). Valid paths are returned unchanged.

export const API_PREFIX = "/api/v1";

export function isApiUrl(url: string | undefined): boolean {
  return !!url && (url === API_PREFIX || url.startsWith(API_PREFIX + "/") || url.startsWith(API_PREFIX + "?"));
}

/** One path segment as Next can decode it: stray "%" escaped, invalid UTF-8 replaced by U+FFFD. */
function safeSegment(segment: string): string {
  // Next would resolve a dot segment (and redirect); escaped twice it stays a segment that names nothing.
  if (segment === "." || segment === ".." || /^(%2e|\.)+$/i.test(segment)) return segment.replace(/%2e|\./gi, "%252E");
  let s = segment.replace(/%(?![0-9A-Fa-f]{2})/g, "%25");
  try {
    decodeURIComponent(s);
    return s;
  } catch {
    const bytes: number[] = [];
    for (let i = 0; i < s.length;) {
      if (s[i] === "%") {
        bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
        i += 3;
      } else {
        const cp = s.codePointAt(i)!;
        bytes.push(...Buffer.from(String.fromCodePoint(cp), "utf8"));
        i += cp > 0xffff ? 2 : 1;
      }
    }
    s = encodeURIComponent(new TextDecoder("utf-8").decode(new Uint8Array(bytes)));
    return s;
  }
}

export function normalizeApiUrl(url: string): string {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q);
  const segments = path.split("/").filter((s, i) => i === 0 || s !== "");
  const clean = segments.map((s, i) => (i === 0 ? s : safeSegment(s))).join("/");
  return (clean || "/") + query;
}
