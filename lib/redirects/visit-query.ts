// A visit's query string, parsed once: decoded names and values for rule conditions, and each
// parameter's raw text for forwarding (passed on as the visitor sent it, so nothing is re-encoded).
// The QR marker (qr=1, lib/analytics/ingest/qr.ts) is dropped: it is recorded, never passed on.

export type QueryParam = { name: string; value: string; raw: string };

/** Parameters kept at most: every request's work is bounded. */
export const MAX_QUERY_PARAMS = 100;

export class VisitQuery {
  constructor(readonly params: readonly QueryParam[]) {}

  has(name: string): boolean {
    return this.params.some((p) => p.name === name);
  }

  /** True when any of the parameter's values is exactly `value`. */
  hasValue(name: string, value: string): boolean {
    return this.params.some((p) => p.name === name && p.value === value);
  }
}

export const EMPTY_QUERY = new VisitQuery([]);

function decode(s: string): string {
  if (!s.includes("%") && !s.includes("+")) return s;
  try {
    return decodeURIComponent(s.replaceAll("+", " "));
  } catch {
    return s; // a malformed escape is compared as written
  }
}

/** The query of a request target ("/abc?x=1&y"), without the QR marker. */
export function parseVisitQuery(url: string | undefined): VisitQuery {
  const q = url?.indexOf("?") ?? -1;
  if (q === -1) return EMPTY_QUERY;
  const params: QueryParam[] = [];
  for (const piece of url!.slice(q + 1).split("&", MAX_QUERY_PARAMS + 1)) {
    if (!piece || params.length >= MAX_QUERY_PARAMS) continue;
    const eq = piece.indexOf("=");
    const name = decode(eq === -1 ? piece : piece.slice(0, eq));
    const value = eq === -1 ? "" : decode(piece.slice(eq + 1));
    if (name === "qr" && value === "1") continue;
    params.push({ name, value, raw: piece });
  }
  return params.length ? new VisitQuery(params) : EMPTY_QUERY;
}
