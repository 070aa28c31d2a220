import type { IncomingMessage, ServerResponse } from "node:http";
import { db } from "../db/client.ts";
import { config } from "../config/index.ts";

// Paths of the app on a host it shares with short links: never treated as codes.
export const RESERVED_PATHS = new Set([
  "api", "w", "login", "signup", "logout", "docs", "invite", "_next", "favicon.ico", "robots.txt", "settings", "new", "app", "static", "public", "account",
]);

const CODE_PATH = /^\/([A-Za-z0-9_-]{1,40})\/?$/;

export async function createShortLinkHandler() {
  const cfg = config();
  return {
    handles(req: IncomingMessage): boolean {
      if (req.method !== "GET" && req.method !== "HEAD") return false;
      const host = (req.headers.host ?? "").toLowerCase();
      if (host !== cfg.shortDomain) return false;
      const m = CODE_PATH.exec((req.url ?? "/").split("?")[0]);
      return !!m && !RESERVED_PATHS.has(m[1]);
    },
    handle(req: IncomingMessage, res: ServerResponse) {
      const code = CODE_PATH.exec((req.url ?? "/").split("?")[0])![1];
      db()
        .link.findUnique({ where: { domainKey_code: { domainKey: 0, code } } })
        .then((link) => {
          if (!link) {
            res.writeHead(404, { "content-type": "text/html; charset=utf-8" }).end("<h1>Link not found</h1>");
            return;
          }
          res.writeHead(302, { location: link.url }).end();
        })
        .catch(() => res.writeHead(500).end());
    },
    async close() {},
  };
}
