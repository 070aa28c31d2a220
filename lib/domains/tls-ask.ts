import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { config } from "../config/index.ts";
import type { Queryable } from "../db/queryable.ts";
import { log } from "../log/index.ts";
import { isServedCustomHost } from "./sql.ts";

// `GET /tls/ask?domain=<host>`: the `ask` URL of Caddy's on-demand TLS (deploy/Caddyfile). Caddy
// asks before it obtains a certificate for a host it has none for; 200 lets it, anything else
// refuses the handshake. 200 for SHORT_DOMAIN's host and for verified, active custom domains of
// active workspaces; 404 otherwise. No authentication: the answer only says whether a host is
// served here, which its DNS already tells. server.ts answers it on every host, before the
// short-link handler and Next, like the operations endpoints (lib/http/operations.ts); a removed
// domain or a deactivated workspace is refused from the next ask (Caddy keeps a certificate it
// already has until it expires).

const TEXT = "text/plain; charset=utf-8";

// The host as the redirect handler compares it (lib/redirects/routing.ts normalizeHost): lower
// case, without a trailing dot. Longer than a host name can be: refused without a lookup.
const askSchema = z.object({
  domain: z
    .string()
    .max(254)
    .transform((v) => v.trim().toLowerCase().replace(/\.$/, "")),
});

/** The short domain's host name, without its port (Caddy asks about names, never ports). */
function shortDomainName(): string {
  const h = config().shortDomain.trim().toLowerCase();
  const colon = h.lastIndexOf(":");
  const name = colon > 0 && !h.endsWith("]") ? h.slice(0, colon) : h;
  return name.replace(/\.$/, "");
}

/** Whether Caddy may obtain a certificate for `rawHost`: no database work for the short domain, else one statement. */
export async function mayServeTls(q: Queryable, rawHost: unknown): Promise<boolean> {
  const parsed = askSchema.safeParse({ domain: rawHost });
  if (!parsed.success || !parsed.data.domain) return false;
  const host = parsed.data.domain;
  if (host === shortDomainName()) return true;
  return isServedCustomHost(q, host);
}

function reply(req: IncomingMessage, res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": TEXT, "Cache-Control": "no-store", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Answers /tls/ask (server.ts checks the path with isTlsAskPath first). */
export function answerTlsAsk(req: IncomingMessage, res: ServerResponse, q: Queryable): void {
  if (req.method !== "GET" && req.method !== "HEAD") return reply(req, res, 405, "Method not allowed.\n", { Allow: "GET, HEAD" });
  const url = req.url ?? "";
  const mark = url.indexOf("?");
  const domain = new URLSearchParams(mark === -1 ? "" : url.slice(mark + 1)).get("domain");
  mayServeTls(q, domain ?? undefined).then(
    (allowed) => (allowed ? reply(req, res, 200, "ok\n") : reply(req, res, 404, "Not found.\n")),
    (e) => {
      log("domains").error({ err: e }, "cannot answer Caddy's TLS question");
      // refused while the database cannot answer: Caddy asks again at the next handshake
      if (!res.headersSent) reply(req, res, 503, "Cannot answer now.\n");
    },
  );
}
