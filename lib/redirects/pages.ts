import type { RedirectOutcome } from "../metrics/index.ts";

// The few pages a short-link host shows, as static HTML strings: no React, no assets, no scripts.
// Built once; the password form is the only page with a variable part.

const STYLE =
  "body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;min-height:100vh;display:grid;place-items:center;background:#f8fafc;color:#0f172a}" +
  "main{max-width:26rem;padding:2rem;text-align:center}h1{font-size:1.25rem;margin:0 0 .5rem}p{margin:0 0 1rem;color:#475569}" +
  "form{display:grid;gap:.5rem;text-align:left}input{font:inherit;padding:.5rem .75rem;border:1px solid #cbd5e1;border-radius:.375rem}" +
  "button{font:inherit;padding:.5rem .75rem;border:0;border-radius:.375rem;background:#4f46e5;color:#fff;cursor:pointer}" +
  ".error{color:#b91c1c}";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`
  );
}

function message(title: string, text: string): Buffer {
  return Buffer.from(layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`));
}

export type PageName =
  | "not_found"
  | "unknown_host"
  | "inactive"
  | "denied"
  | "not_started"
  | "expired"
  | "cap_reached"
  | "too_many_guesses"
  | "link_busy"
  | "method_not_allowed"
  | "payload_too_large"
  | "unavailable"
  | "error";

export const PAGES: Record<PageName, Buffer> = {
  not_found: message("Link not found", "There is no short link at this address. Check it for typing mistakes."),
  unknown_host: message("Link not found", "This host does not serve short links."),
  inactive: message("Link not available", "This link has been switched off by its owner."),
  denied: message("Link blocked", "This link leads to a site this service does not send visitors to."),
  not_started: message("Link not active yet", "This link is not active yet. Try again later."),
  expired: message("Link expired", "This link has expired and no longer leads anywhere."),
  cap_reached: message("Link no longer available", "This link has reached its click limit."),
  too_many_guesses: message("Too many attempts", "Too many wrong passwords for this link. Wait a few minutes, then try again."),
  link_busy: message(
    "Too many attempts",
    "This link has had too many wrong passwords in the last few minutes. Wait five minutes, then try again.",
  ),
  method_not_allowed: message("Method not allowed", "Short links answer GET and HEAD requests."),
  payload_too_large: message("Request too large", "The form you sent is too large."),
  unavailable: message("Temporarily unavailable", "This link cannot be opened right now. Try again in a moment."),
  error: message("Something went wrong", "This link cannot be opened right now. Try again in a moment."),
};

/**
 * The password form; it posts `password` and the form `token` (urlencoded) to the link's own URL
 * (keeping a QR-scan marker), or to `action` (the visit's own path and query, for a link that
 * forwards them: lib/redirects/forward.ts). The token is the visitor's (lib/redirects/password.ts formToken).
 */
export function passwordForm(code: string, wrong: boolean, qr = false, token = "", action?: string): Buffer {
  const alert = wrong ? `<p class="error" role="alert" id="pw-error">Wrong password. Try again.</p>` : "";
  const described = wrong ? ` aria-describedby="pw-error" aria-invalid="true"` : "";
  return Buffer.from(
    layout(
      "Password required",
      `<h1>Password required</h1><p>This link is protected. Enter its password to continue.</p>${alert}` +
        `<form method="post" action="${action !== undefined ? escapeHtml(action) : `/${encodeURIComponent(code)}${qr ? "?qr=1" : ""}`}">` +
        (token ? `<input type="hidden" name="token" value="${escapeHtml(token)}">` : "") +
        `<label for="password">Password</label>` +
        `<input id="password" name="password" type="password" autocomplete="current-password" required autofocus${described}>` +
        `<button type="submit">Continue</button></form>`,
    ),
  );
}

/** What each page answers, as linkhop_redirects_total counts it (lib/metrics; the password form is "password"). */
export const PAGE_OUTCOME: Record<PageName, RedirectOutcome> = {
  not_found: "not_found",
  unknown_host: "not_found",
  inactive: "inactive",
  denied: "denylisted",
  not_started: "not_started",
  expired: "expired",
  cap_reached: "capped",
  too_many_guesses: "password",
  link_busy: "password",
  method_not_allowed: "bad_request",
  payload_too_large: "bad_request",
  unavailable: "error",
  error: "error",
};
