// Linkhop's single entry: config -> database (embedded or DATABASE_URL) and migrations -> the
// runtime (lib/runtime.ts: pools, click pipeline, caches, background jobs) -> one HTTP server where
// short-link requests take a lean path (lib/redirects), /api/v1 endpoints are answered by their route
// handlers directly (lib/api/lane.ts) and everything else goes to Next.js ->
// graceful shutdown (/readyz 503, SHUTDOWN_DRAIN_MS of serving, stop accepting, the requests in
// flight answered, runtime.close(), stop the embedded PostgreSQL). /healthz, /readyz and /metrics
// are answered first, on every host (lib/http/operations.ts), then Caddy's /tls/ask (lib/domains/tls-ask.ts).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { randomBytes } from "node:crypto";

function ensureAuthSecret(dataDir: string) {
  if (process.env.AUTH_SECRET) return;
  const file = path.join(dataDir, "auth-secret");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  }
  process.env.AUTH_SECRET = fs.readFileSync(file, "utf8").trim();
}

async function main() {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  process.env.AUTH_TRUST_HOST ??= "true";
  const { log: logger, logOptions, routeConsoleToLog } = await import("./lib/log/index.ts");
  const log = logger("linkhop");
  const { config } = await import("./lib/config/index.ts");
  const { plans } = await import("./lib/plans/index.ts");
  const { assertDataDirWritable, assertPortFree, databaseError, listenError, startErrorLine } =
    await import("./lib/config/start-errors.ts");
  // a refusal to start: one line saying what and what to do, exit 1 (lib/config/start-errors.ts)
  const refuse = (e: unknown): never => {
    log.fatal(`cannot start: ${startErrorLine(e)}`);
    process.exit(1);
  };
  let cfg;
  try {
    cfg = config();
    plans();
    // the checks that need nothing started come first: nothing to stop when they fail
    if (!process.env.AUTH_SECRET || !process.env.DATABASE_URL) assertDataDirWritable(path.resolve(cfg.LINKHOP_DATA_DIR));
    await assertPortFree(cfg.PORT);
    if (cfg.METRICS_PORT !== undefined) await assertPortFree(cfg.METRICS_PORT, "METRICS_PORT");
  } catch (e) {
    return refuse(e);
  }
  // JSON lines: what Next.js and other packages print with console.* becomes records too
  if (logOptions().format === "json") routeConsoleToLog();
  ensureAuthSecret(path.resolve(cfg.LINKHOP_DATA_DIR));
  // Auth.js builds its own URLs from APP_URL: the callback it sends to GitHub / Google / the OpenID
  // provider must be the one registered there (APP_URL/api/auth/callback/<id>), the same when the
  // sign-in starts (a server action, which would see the Host header) and when the code is redeemed
  // (a route handler, which would see this server's listening address, 0.0.0.0), and not a Host
  // header a client chose.
  process.env.AUTH_URL ??= new URL(cfg.APP_URL).origin;
  if (cfg.WEBHOOK_ALLOW_PRIVATE) {
    log.warn("WARNING: WEBHOOK_ALLOW_PRIVATE=1: webhooks may target http, any port and private addresses. Never use this in production.");
  }
  if (cfg.WEBHOOK_TEST_ALLOW_PORT !== undefined) {
    log.warn(`WARNING: WEBHOOK_TEST_ALLOW_PORT=${cfg.WEBHOOK_TEST_ALLOW_PORT}: a testing aid; never set it in production.`);
  }

  const dev = process.env.LINKHOP_DEV === "1";
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!dev && !fs.existsSync(path.join(distDir, "BUILD_ID"))) {
    log.fatal(`no production build in ${distDir}/: run \`npm run build\` (npm install does it unless LINKHOP_SKIP_BUILD=1)`);
    process.exit(1);
  }

  const { prepareDatabase } = await import("./lib/db/start.ts");
  let database;
  const embedded = !process.env.DATABASE_URL;
  try {
    database = await prepareDatabase((msg) => log.info(msg));
  } catch (e) {
    // prepareDatabase has stopped the embedded PostgreSQL it started
    log.debug({ err: e }, "database start failed");
    return refuse(databaseError(e, process.env.DATABASE_URL, embedded));
  }

  const { default: next } = await import("next");
  const app = next({ dev, dir: process.cwd(), port: cfg.PORT, hostname: "0.0.0.0" });
  const handleNext = app.getRequestHandler();
  await app.prepare();

  const { createRuntime } = await import("./lib/runtime.ts");
  const runtime = await createRuntime(cfg, { serve: true, jobs: true });
  const shortLinks = runtime.shortLinks!;
  const { isApiUrl, normalizeApiUrl } = await import("./lib/http/api-url.ts");
  const { answerThroughLane, matchApiLane } = await import("./lib/api/lane.ts");
  const appOrigin = new URL(cfg.APP_URL).origin;
  const { stampClientAddress } = await import("./lib/auth/client-address.ts");
  const { stampPagePath } = await import("./lib/auth/page-path.ts");
  const { appSecurityHeaders, isUploadedImagePath, UPLOADED_IMAGE_CSP } = await import("./lib/http/security-headers.ts");
  const { acceptRequestId, REQUEST_ID_HEADER } = await import("./lib/log/request-id.ts");
  const { earlyAnswer } = await import("./lib/http/request-guard.ts");
  const {
    CROSS_SITE_ACTION_REFUSAL,
    handOverActionBody,
    isCrossSiteAction,
    isJsonServerAction,
    jsonNestingDepth,
    MAX_ACTION_NESTING,
    readActionBody,
  } = await import("./lib/http/action-guard.ts");
  const passToNext = (req: http.IncomingMessage, res: http.ServerResponse) =>
    handleNext(req, res).catch((e) => {
      log.error({ requestId: req.headers[REQUEST_ID_HEADER], err: e }, "Next.js failed to answer");
      if (!res.headersSent) res.writeHead(500).end();
    });
  const securityHeaders = appSecurityHeaders(cfg.APP_URL);
  // /healthz, /readyz, /metrics before anything else, on every host (lib/http/operations.ts)
  const { answerOperations, startMetricsServer } = await import("./lib/http/operations.ts");
  const { isTlsAskPath } = await import("./lib/http/operations-paths.ts");
  const { answerTlsAsk } = await import("./lib/domains/tls-ask.ts");
  const { databaseProbe } = await import("./lib/db/readiness.ts");
  const { closeServer } = await import("./lib/http/drain.ts");
  let stopping = false;
  const operations = { probe: databaseProbe(database.url), stopping: () => stopping, metricsToken: cfg.METRICS_TOKEN };
  const metricsServer = cfg.METRICS_PORT === undefined ? null : await startMetricsServer(cfg.METRICS_HOST, cfg.METRICS_PORT);
  if (metricsServer) log.info(`metrics on http://${cfg.METRICS_HOST}:${metricsServer.port}/metrics`);

  const server = http.createServer((req, res) => {
    // draining (see shutdown): each answer closes its connection, so clients reconnect elsewhere
    if (stopping) res.setHeader("Connection", "close");
    if (answerOperations(req, res, operations)) return;
    // Caddy's on-demand TLS question, on every host too (lib/domains/tls-ask.ts)
    if (isTlsAskPath(req.url)) return answerTlsAsk(req, res, runtime.database.redirects);
    if (shortLinks.handles(req)) {
      shortLinks.handle(req, res);
      return;
    }
    // Every other request has an id (lib/log/request-id.ts): Next's handlers read it from the request.
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader("X-Request-Id", requestId);
    for (const [name, value] of securityHeaders) res.setHeader(name, value);
    if (isUploadedImagePath(req.url)) res.setHeader("Content-Security-Policy", UPLOADED_IMAGE_CSP);
    // Methods, targets and escapes Next cannot handle get a 4xx here (lib/http/request-guard.ts).
    const early = earlyAnswer(req);
    if (early) {
      res.writeHead(early.status, early.headers).end(early.body);
      return;
    }
    // API paths Next cannot route as they are (bad escapes, "..") are made routable (lib/http/api-url.ts).
    const api = isApiUrl(req.url);
    if (api) req.url = normalizeApiUrl(req.url!);
    // The client's address for the sign-in limits (a client-sent header of that name is replaced).
    stampClientAddress(req, cfg.TRUST_PROXY);
    // The page asked for, where a signed-out visitor returns after signing in (lib/auth/page-path.ts).
    stampPagePath(req);
    // A server action from another site: a 403 and one warning, where Next would answer 500 and log
    // three errors (lib/http/action-guard.ts).
    if (isCrossSiteAction(req)) {
      log.warn({ requestId, origin: req.headers.origin?.slice(0, 100), path: req.url?.slice(0, 200) }, "cross-site server action refused");
      res.writeHead(403, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" }).end(CROSS_SITE_ACTION_REFUSAL);
      return;
    }
    // Server action arguments too deeply nested for Next's decoder are refused here (lib/http/action-guard.ts).
    if (isJsonServerAction(req)) {
      void readActionBody(req).then((body) => {
        if (body === null)
          return void res.writeHead(413, { "Content-Type": "text/plain", Connection: "close" }).end("Request too large.\n");
        if (jsonNestingDepth(body.toString("utf8")) > MAX_ACTION_NESTING)
          return void res.writeHead(400, { "Content-Type": "text/plain" }).end("Bad request: the arguments are nested too deeply.\n");
        handOverActionBody(req, body);
        void passToNext(req, res);
      });
      return;
    }
    // /api/v1 endpoints: their route handlers, called without Next's request machinery (lib/api/lane.ts)
    const lane = api ? matchApiLane(req.method, req.url) : null;
    if (lane && answerThroughLane(req, res, lane, appOrigin)) return;
    void passToNext(req, res);
  });
  server.keepAliveTimeout = 65_000;
  // CONNECT (proxy tunnels) is not something this server does: answer instead of dropping the socket.
  server.on("connect", (_req, socket) => {
    socket.end(
      "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
  });

  // Signals are handled from before the server listens: a parent that sees `ready` and stops the
  // process at once must get the graceful shutdown, not the default action of SIGTERM.
  // From the moment a shutdown begins /readyz answers 503. On SIGTERM (what process managers and
  // orchestrators send) the process goes on serving for SHUTDOWN_DRAIN_MS, so a load balancer that
  // probes /readyz takes it out before it stops accepting; then the requests in flight are
  // answered (up to 5 s) before runtime.close() closes the pools they may still need.
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const drainMs = signal === "SIGTERM" ? cfg.SHUTDOWN_DRAIN_MS : 0;
    log.info(`${signal}: shutting down${drainMs ? `, serving ${drainMs} ms more while load balancers drain` : ""}`);
    const force = setTimeout(() => process.exit(1), drainMs + 25_000);
    force.unref();
    if (drainMs) await new Promise((resolve) => setTimeout(resolve, drainMs));
    await closeServer(server, 5_000);
    await metricsServer?.close();
    await operations.probe.close();
    await runtime.close();
    await database.stop();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  // Started by another process (tests, tooling) over IPC: go when it goes, instead of living on.
  process.on("disconnect", () => void shutdown("parent exited"));
  // A closed stdout/stderr (parent gone) must not turn logging into a busy error loop.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") void shutdown("output closed");
    });
  }

  // the port checked free at first may have been taken since: the same line, after stopping what runs
  await new Promise<void>((resolve) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      log.fatal(`cannot start: ${listenError(e, cfg.PORT).message}`);
      void (async () => {
        await metricsServer?.close();
        await operations.probe.close();
        await runtime.close();
        await database.stop();
        process.exit(1);
      })();
    });
    server.listen(cfg.PORT, resolve);
  });
  const port = (server.address() as { port: number }).port;
  log.info(`listening on http://localhost:${port} (APP_URL ${cfg.APP_URL}, short domain ${cfg.shortDomain})`);
  // a fresh instance: the one-time link that makes its first operator (lib/instance/setup-link.ts)
  const { setupLinkAtStart } = await import("./lib/instance/setup-link.ts");
  const setup = await setupLinkAtStart().catch((e) => void log.warn({ err: e }, "could not make a setup link"));
  if (setup)
    log.info(
      `no instance administrator yet: sign in, then open ${setup.url} to become it (once, within an hour; \`npm run admin -- instance:setup-link\` prints a new one)`,
    );
  process.send?.({ ready: true, port, metricsPort: metricsServer?.port });
}

main().catch(async (e) => {
  const { log } = await import("./lib/log/index.ts");
  log("linkhop").fatal({ err: e }, "cannot start");
  process.exit(1);
});
