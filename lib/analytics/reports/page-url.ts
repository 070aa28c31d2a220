// URLs of the Analytics page: the current parameters with some changed (null removes one), in a
// stable order, so a filter clicked on the page is kept in the URL and can be shared.
export function withParams(basePath: string, params: Record<string, string>, changes: Record<string, string | null> = {}): string {
  const next: Record<string, string> = { ...params };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  const query = new URLSearchParams(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
  return query ? `${basePath}?${query}` : basePath;
}
