// How an attempt ended, and its words for the delivery log. No Node imports: the Developers
// page's client components use it too.

export type AttemptOutcome =
  "delivered" | "http_status" | "redirect" | "timeout" | "connection_refused" | "dns_error" | "tls_error" | "address_refused" | "error";

export const OUTCOME_TEXT: Record<AttemptOutcome, string> = {
  delivered: "Delivered",
  http_status: "Error status",
  redirect: "Redirect (not followed)",
  timeout: "Timed out",
  connection_refused: "Connection refused",
  dns_error: "DNS failure",
  tls_error: "TLS error",
  address_refused: "Address refused",
  error: "Network error",
};
