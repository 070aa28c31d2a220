// Small display helpers shared by the Developers pages (server and client).

export function formatTime(d: Date | string | null | undefined): string {
  if (!d) return "—";
  const iso = new Date(d).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
}

export function describeEvents(events: "all" | string[]): string {
  return events === "all" ? "All events" : events.join(", ");
}

const OUTCOMES: Record<string, string> = {
  delivered: "Delivered",
  http_status: "Error status",
  redirect: "Redirect (not followed)",
  timeout: "Timed out",
  connection_refused: "Connection refused",
  dns_error: "DNS failure",
  tls_error: "TLS error",
  address_refused: "Address refused",
  error: "Network error",
  cancelled: "Not sent",
};

/** "HTTP 200" for an answer, else the reason ("Timed out", "TLS error", ...). */
export function describeOutcome(outcome: string, statusCode: number | null): string {
  if (statusCode !== null) return `HTTP ${statusCode}${outcome === "redirect" ? " (redirect, not followed)" : ""}`;
  return OUTCOMES[outcome] ?? outcome;
}
