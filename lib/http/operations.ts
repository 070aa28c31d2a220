import { createHash, timingSafeEqual } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DatabaseProbe } from "../db/readiness.ts";
import { log } from "../log/index.ts";
import { metrics } from "../metrics/index.ts";
import { operationsPathOf } from "./operations-paths.ts";

// The operations endpoints, answered by server.ts before the short-link handler and Next, on every
// host, without authentication or rate limit, and never counted as clicks:
//   GET /healthz  liveness: the process answers (no database work)
//   GET /readyz   readiness: not shutting down, PostgreSQL answers within a second and every
//                 migration is applied (lib/db/readiness.ts); else 503 with a one-line reason
//   GET /metrics  Prometheus metrics (lib/metrics): on the main port only with METRICS_TOKEN as a
//                 bearer token (without it the path answers 404); METRICS_PORT serves them on a
//                 port of their own (startMetricsServer), bound to METRICS_HOST (127.0.0.1).

export type OperationsOptions = {
  probe: DatabaseProbe;
  /** true from the moment a graceful shutdown begins */
  stopping: () => boolean;
  /** METRICS_TOKEN */
  metricsToken?: string;
};

const TEXT = "text/plain; charset=utf-8";

function reply(req: IncomingMessage, res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": TEXT, "Cache-Control": "no-store", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(req.method === "HEAD" ? undefined : body);
}

async function replyMetrics(req: IncomingMessage, res: ServerResponse) {
  try {
    const m = metrics();
    reply(req, res, 200, await m.render(), { "Content-Type": m.contentType });
  } catch (e) {
    log("metrics").error({ err: e }, "cannot render the metrics");
    if (!res.headersSent) reply(req, res, 500, "metrics unavailable\n");
  }
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The request carries `Authorization: Bearer <token>` (compared in constant time). */
export function hasBearerToken(header: string | undefined, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return m !== null && timingSafeEqual(digest(m[1]), digest(token));
}

/** Answers the request when it is an operations endpoint; false (nothing done) for any other. */
export function answerOperations(req: IncomingMessage, res: ServerResponse, opts: OperationsOptions): boolean {
  const path = operationsPathOf(req.url);
  if (path === null) return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    reply(req, res, 405, "Method not allowed.\n", { Allow: "GET, HEAD" });
    return true;
  }
  if (path === "healthz") reply(req, res, 200, "ok\n");
  else if (path === "readyz") {
    if (opts.stopping()) reply(req, res, 503, "not ready: shutting down\n");
    else
      void opts.probe.check().then((reason) => {
        const why = opts.stopping() ? "shutting down" : reason;
        if (why) reply(req, res, 503, `not ready: ${why}\n`);
        else reply(req, res, 200, "ready\n");
      });
  } else if (!opts.metricsToken) reply(req, res, 404, "Not found.\n");
  else if (!hasBearerToken(req.headers.authorization, opts.metricsToken))
    reply(req, res, 401, "A bearer token is required.\n", { "WWW-Authenticate": 'Bearer realm="metrics"' });
  else void replyMetrics(req, res);
  return true;
}

export type MetricsServer = { port: number; close(): Promise<void> };

/** /metrics on METRICS_PORT (no token: the port is reachable only where METRICS_HOST allows). */
export async function startMetricsServer(host: string, port: number): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (operationsPathOf(req.url) !== "metrics") reply(req, res, 404, "Not found: this port serves /metrics only.\n");
    else if (req.method !== "GET" && req.method !== "HEAD") reply(req, res, 405, "Method not allowed.\n", { Allow: "GET, HEAD" });
    else void replyMetrics(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
