import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { isBotAgent } from "../analytics/ingest/agent.ts";
import type { ClickHit } from "../analytics/ingest/enrich.ts";
import { config } from "../config/index.ts";
import { clientAddress } from "../http/client-address.ts";
import { RESERVED_PATHS } from "../links/short-code.ts";
import { metrics, type RedirectOutcome } from "../metrics/index.ts";
import type pg from "pg";
import { DomainTable, LinkCache } from "./cache.ts";
import { countCappedClick, databaseUnreachable, readClicks } from "../clicks/counters.ts";
import type { ClickPipeline } from "../clicks/pipeline.ts";
import { withDenylist } from "./denylist.ts";
import { notFoundPage, pathPage, writeDomainPage, type DomainPage } from "./domain-pages.ts";
import { geoLookup } from "../analytics/ingest/geo.ts";
import { destinationFor, routingOf, type Destination, type DestinationContext } from "./destination.ts";
import { blockedAnswer, lifecycleState, type Blocked, type RedirectLink } from "./lifecycle.ts";
import { isPreviewAgent, previewPage } from "./preview.ts";
import { listenForChanges } from "./notify.ts";
import { PAGE_OUTCOME, PAGES, passwordForm, type PageName } from "./pages.ts";
import {
  checkLinkPassword,
  formToken,
  formTokenAccepted,
  formTokenCookie,
  LINK_GUESS_WINDOW_SECONDS,
  MAX_FORM_BYTES,
  passwordFromForm,
  startGuessPruning,
  tokenFromForm,
  visitorKey,
} from "./password.ts";
import { appTopLevelSegments, isQrVisit, normalizeHost, routeRequest, withoutPort, type Route } from "./routing.ts";
import { findLinkForRedirect, loadServedDomains } from "./sql.ts";
import { log } from "../log/index.ts";
import { acceptRequestId, REQUEST_ID_HEADER } from "../log/request-id.ts";

// The lean short-link handler in front of Next.js (server.ts asks handles(req) for every request).
// A warm request is answered synchronously from the in-process cache: no React, no Next, no
// Prisma, no database round trip (uncapped clicks are counted in memory and flushed in batches).
// Each visit sent on to a destination leaves a ClickHit in the click pipeline (no I/O here; the
// pipeline writes counters and click events in one transaction per batch: lib/clicks). Bots (isbot) are redirected and recorded as
// bots, but never counted and never use up maxClicks.

export { RESERVED_PATHS };

export type ShortLinkHandler = {
  handles(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
  /** links (and "no such link" answers) in the cache, for /metrics */
  cacheEntries(): number;
};

const ROUTE = Symbol("linkhop.route");
type RoutedRequest = IncomingMessage & { [ROUTE]?: Route };
// when the request came in (performance.now()), for the latency histogram
const STARTED = Symbol("linkhop.started");
type TimedResponse = ServerResponse & { [STARTED]?: number };

const HTML = "text/html; charset=utf-8";

export type ShortLinkDeps = {
  /** the redirect path's pool (lib/db/client.ts) */
  pool: pg.Pool;
  /** for the LISTEN connection that keeps the caches fresh */
  databaseUrl: string;
  /** the runtime's click pipeline */
  clicks: ClickPipeline;
};

export async function createShortLinkHandler({ pool, databaseUrl, clicks }: ShortLinkDeps): Promise<ShortLinkHandler> {
  const cfg = config();
  const links = new LinkCache((domainKey, code) =>
    findLinkForRedirect(pool, domainKey, code).then((link) => withDenylist(link, cfg.DESTINATION_DENYLIST)),
  );
  const domains = new DomainTable(() => loadServedDomains(pool, cfg.DESTINATION_DENYLIST));
  const shortDomain = normalizeHost(cfg.shortDomain);
  const geoHeader = cfg.GEO_COUNTRY_HEADER;
  const secureCookies = cfg.APP_URL.startsWith("https:");
  const appSegments = appTopLevelSegments(path.resolve("app"));
  // in development Next also serves internals such as /__nextjs_original-stack-frame
  const dev = process.env.LINKHOP_DEV === "1";
  const isAppPath = (segment: string) => RESERVED_PATHS.has(segment) || appSegments.has(segment) || (dev && segment.startsWith("__"));
  const routing = { shortDomain, customDomainId: (host: string) => domains.idOf(host), isAppPath };
  const recorded = metrics().redirects;
  const destinations: DestinationContext = {
    geoHeader,
    trustProxy: cfg.TRUST_PROXY,
    geo: geoLookup,
    clientAddress: (req) => clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], cfg.TRUST_PROXY),
  };
  const shortScheme = new URL(cfg.APP_URL).protocol;
  function record(res: ServerResponse, outcome: RedirectOutcome) {
    recorded.outcomes.inc(outcome);
    const started = (res as TimedResponse)[STARTED];
    if (started !== undefined) recorded.duration.observeSince(started);
  }

  let domainRetry: NodeJS.Timeout | undefined;
  const reloadDomains = () => {
    domains.reload().catch((e) => {
      log("redirects").error({ err: e }, "cannot load custom domains; retrying");
      clearTimeout(domainRetry);
      domainRetry = setTimeout(reloadDomains, 1000);
      domainRetry.unref();
    });
  };

  const listener = listenForChanges(databaseUrl, {
    onChange(change) {
      if (change.kind === "link") links.invalidate(change.domainKey, change.code);
      else if (change.kind === "domain") reloadDomains();
      else {
        links.clear(); // a workspace switched on or off: rare, so drop everything
        reloadDomains(); // its domains' pages (domain-pages.ts) are served only while it is on
      }
    },
    onState(live) {
      links.live = live;
      if (live) {
        // notifications sent while we were not listening are lost: start from the database again
        links.clear();
        reloadDomains();
      }
    },
  });
  await listener.ready;
  await domains.reload().catch((e) => log("redirects").error({ err: e }, "cannot load custom domains"));
  const stopPruning = startGuessPruning(pool);

  function send(res: ServerResponse, status: number, page: PageName | Buffer, head: boolean, extra?: Record<string, string>) {
    const body = typeof page === "string" ? PAGES[page] : page;
    record(res, typeof page === "string" ? PAGE_OUTCOME[page] : "password");
    res.writeHead(status, {
      "Content-Type": HTML,
      "Content-Length": body.length,
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      ...extra,
    });
    res.end(head ? undefined : body);
  }

  function redirect(res: ServerResponse, location: string, outcome: RedirectOutcome = "redirect", setCookie?: string) {
    record(res, outcome);
    res.writeHead(
      302,
      setCookie
        ? { Location: location, "Cache-Control": "no-store", "Content-Length": 0, "Set-Cookie": setCookie }
        : { Location: location, "Cache-Control": "no-store", "Content-Length": 0 },
    );
    res.end();
  }

  /** A custom domain's own answer for a path no link answers (domain-pages.ts). */
  function sendDomainPage(res: ServerResponse, page: DomainPage, head: boolean) {
    record(res, "domain_page");
    writeDomainPage(res, page, head);
  }
  const pagesOf = (req: IncomingMessage) => domains.pagesOf(withoutPort(normalizeHost(req.headers.host)));

  function sendBlocked(res: ServerResponse, link: RedirectLink, reason: Blocked, head: boolean) {
    const answer = blockedAnswer(link, reason);
    if (answer.kind === "fallback") redirect(res, answer.url, PAGE_OUTCOME[reason]);
    else send(res, answer.status, answer.reason, head);
  }

  // A redirect gets no request id (that would be work on every click); a failed one gets one here.
  function fail(res: ServerResponse, e: unknown, status = 503) {
    const requestId = acceptRequestId(res.req?.headers[REQUEST_ID_HEADER]);
    log("redirects").error({ requestId, status, err: e }, "short-link request failed");
    if (!res.headersSent)
      send(res, status, status === 503 ? "unavailable" : "error", false, {
        "X-Request-Id": requestId,
        ...(status === 503 ? { "Retry-After": "5" } : {}),
      });
    else {
      record(res, "error");
      res.destroy();
    }
  }

  const hostOf = (req: IncomingMessage, link: RedirectLink) =>
    link.domainKey === 0 ? shortDomain : withoutPort(normalizeHost(req.headers.host));

  function hitOf(req: IncomingMessage, link: RedirectLink, to: Destination, now: number, bot: boolean): ClickHit {
    return {
      at: now,
      workspaceId: link.workspaceId,
      linkId: link.id,
      domain: hostOf(req, link),
      target: to.decision.kind,
      address: clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], cfg.TRUST_PROXY),
      userAgent: req.headers["user-agent"],
      referrer: req.headers.referer,
      countryHeader: req.headers[geoHeader] as string | undefined,
      bot,
      qr: isQrVisit(req.url),
      destination: to.decision.url,
      language: to.language,
    };
  }

  /**
   * The visitor goes to the destination chosen for them (destination.ts): a click, unless the
   * User-Agent is a bot, which is redirected the same way (while the link is open) and recorded as
   * a bot only. A path or a forwarding the link does not allow is the 404 page, counting nothing.
   */
  function sendToDestination(
    req: IncomingMessage,
    res: ServerResponse,
    link: RedirectLink,
    now: number,
    code: string,
    rest: string | null,
  ) {
    const bot = isBotAgent(req.headers["user-agent"]);
    const to = destinationFor(req, link, now, { code, bot, head: false, rest }, destinations);
    const location = to.location;
    if (location === null) return send(res, 404, "not_found", false);
    if (bot) {
      if (link.maxClicks === null) {
        clicks.add(hitOf(req, link, to, now, true), false);
        return redirect(res, location);
      }
      cappedCount(link).then(
        (stored) => {
          if (stored === null || stored >= link.maxClicks!) return sendBlocked(res, link, "cap_reached", false);
          clicks.add(hitOf(req, link, to, now, true), false);
          redirect(res, location);
        },
        (e) => fail(res, e),
      );
      return;
    }
    if (link.maxClicks === null) {
      clicks.add(hitOf(req, link, to, now, false), true);
      redirect(res, location, "redirect", to.setCookie);
      return;
    }
    const capReached = () => {
      link.clicks = Math.max(link.clicks, link.maxClicks!); // remembered until the link changes
      sendBlocked(res, link, "cap_reached", false);
    };
    // the database cannot count it now, or its count lacks clicks this process holds: decided from
    // what the process knows, and held for the batch that adds it (lib/clicks/pipeline.ts addHeld)
    const held = () =>
      clicks.addHeld(hitOf(req, link, to, now, false), link.maxClicks!, link.clicks)
        ? redirect(res, location, "redirect", to.setCookie)
        : capReached();
    if (clicks.heldClicks(link.id) > 0) return held();
    countCappedClick(pool, link.id).then(
      (counted) => {
        if (counted === null) return capReached();
        clicks.sawClicks(link.id, counted);
        clicks.add(hitOf(req, link, to, now, false), false); // counted by countCappedClick
        redirect(res, location, "redirect", to.setCookie);
      },
      (e) => (databaseUnreachable(e) ? held() : fail(res, e)),
    );
  }

  /**
   * A capped link's count for a visit that does not count (a bot, HEAD): the stored count plus the
   * clicks this process holds for it; while the database cannot be asked, the count the process knows.
   */
  function cappedCount(link: RedirectLink): Promise<number | null> {
    return readClicks(pool, link.id).then(
      (stored) => (stored === null ? null : stored + clicks.heldClicks(link.id)),
      (e) => {
        if (!databaseUnreachable(e)) throw e;
        return clicks.knownClicks(link.id, link.clicks);
      },
    );
  }

  /** GET or HEAD on a code (and what follows it: forwardPath). HEAD answers like GET but never counts. */
  function answer(req: IncomingMessage, res: ServerResponse, link: RedirectLink | null, code: string, rest: string | null) {
    const head = req.method === "HEAD";
    // an unknown code, or a path past a link that does not forward paths: the domain's
    // notFoundUrl when it sets one (domain-pages.ts), else the 404 page
    const notFound = () => {
      const page = notFoundPage(pagesOf(req));
      return page ? sendDomainPage(res, page, head) : send(res, 404, "not_found", head);
    };
    if (!link) return notFound();
    const routing = routingOf(link);
    if (rest !== null && !routing.forwardPath) return notFound();
    const now = Date.now();
    const state = lifecycleState(link, now);
    if (state !== "open") return sendBlocked(res, link, state, head);
    if (link.passwordHash) return sendPasswordForm(req, res, link, code, 200, false, head);
    // a preview fetcher gets the card (and counts nothing: it was sent nowhere)
    if (routing.preview && isPreviewAgent(req.headers["user-agent"]))
      return sendPreview(res, previewPage(routing.preview, `${shortScheme}//${hostOf(req, link)}/${code}`), head);
    if (!head) return sendToDestination(req, res, link, now, code, rest);
    const destination = destinationFor(
      req,
      link,
      now,
      { code, bot: isBotAgent(req.headers["user-agent"]), head, rest },
      destinations,
    ).location;
    if (destination === null) return send(res, 404, "not_found", head);
    if (link.maxClicks === null) return redirect(res, destination);
    cappedCount(link).then(
      (stored) => {
        if (stored === null || stored >= link.maxClicks!) sendBlocked(res, link, "cap_reached", true);
        else redirect(res, destination);
      },
      (e) => fail(res, e),
    );
  }

  function sendPreview(res: ServerResponse, body: Buffer, head: boolean) {
    record(res, "preview");
    res.writeHead(200, {
      "Content-Type": HTML,
      "Content-Length": body.length,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    });
    res.end(head ? undefined : body);
  }

  /**
   * The password form with the visitor's form token (set as a cookie when they have none yet). A
   * link that forwards the visit's path or query posts back to the visit's own URL, so the right
   * password forwards them too.
   */
  function sendPasswordForm(
    req: IncomingMessage,
    res: ServerResponse,
    link: RedirectLink,
    code: string,
    status: number,
    wrong: boolean,
    head: boolean,
  ) {
    const { token, setCookie } = formToken(req.headers.cookie);
    const routing = routingOf(link);
    send(
      res,
      status,
      passwordForm(code, wrong, isQrVisit(req.url), token, routing.parts ? req.url : undefined),
      head,
      setCookie ? { "Set-Cookie": formTokenCookie(token, secureCookies) } : undefined,
    );
  }

  async function submitPassword(req: IncomingMessage, res: ServerResponse, domainKey: number, code: string, rest: string | null) {
    const body = await readForm(req);
    if (body === ABORTED) return; // the visitor went away mid-post: nobody to answer, nothing to log
    if (body === null) return send(res, 413, "payload_too_large", false, { Connection: "close" });
    const link = links.get(domainKey, code, Date.now()) ?? (await links.fetch(domainKey, code));
    if (!link || (rest !== null && !routingOf(link).forwardPath)) return send(res, 404, "not_found", false);
    const now = Date.now();
    const state = lifecycleState(link, now);
    if (state !== "open") return sendBlocked(res, link, state, false);
    if (!link.passwordHash) return sendToDestination(req, res, link, now, code, rest);
    const viaForm = formTokenAccepted(req.headers.cookie, tokenFromForm(body));
    const visitor = visitorKey(clientAddress(req.socket.remoteAddress, req.headers["x-forwarded-for"], cfg.TRUST_PROXY), viaForm);
    const outcome = await checkLinkPassword(pool, { id: link.id, passwordHash: link.passwordHash }, passwordFromForm(body), visitor);
    if (outcome === "too_many") return send(res, 429, "too_many_guesses", false, { "Retry-After": "900" });
    if (outcome === "link_busy") return send(res, 429, "link_busy", false, { "Retry-After": String(LINK_GUESS_WINDOW_SECONDS) });
    if (outcome === "wrong") return sendPasswordForm(req, res, link, code, 401, true, false);
    sendToDestination(req, res, link, Date.now(), code, rest);
  }

  return {
    handles(req) {
      const route = routeRequest(req.method, req.headers.host, req.url, routing);
      if (route.kind === "next") return false;
      (req as RoutedRequest)[ROUTE] = route;
      return true;
    },

    handle(req, res) {
      (res as TimedResponse)[STARTED] = performance.now();
      const route = (req as RoutedRequest)[ROUTE] ?? routeRequest(req.method, req.headers.host, req.url, routing);
      const head = req.method === "HEAD";
      try {
        switch (route.kind) {
          case "link": {
            const { domainKey, code } = route;
            const rest = route.rest ?? null;
            if (req.method === "POST") {
              submitPassword(req, res, domainKey, code, rest).catch((e) => fail(res, e));
              return;
            }
            const cached = links.get(domainKey, code, Date.now());
            if (cached !== undefined) {
              recorded.cacheHits.inc();
              return answer(req, res, cached, code, rest);
            }
            recorded.cacheMisses.inc();
            links.fetch(domainKey, code).then(
              (link) => answer(req, res, link, code, rest),
              (e) => fail(res, e),
            );
            return;
          }
          case "unknown_host":
            return send(res, 404, "unknown_host", head);
          case "not_found": {
            const page = pathPage(pagesOf(req), req.method, req.url);
            return page ? sendDomainPage(res, page, head) : send(res, 404, "not_found", head);
          }
          case "method_not_allowed":
            return send(res, 405, "method_not_allowed", head, { Allow: "GET, HEAD, POST" });
          default:
            return send(res, 404, "not_found", head);
        }
      } catch (e) {
        fail(res, e, 500);
      }
    },

    async close() {
      clearTimeout(domainRetry);
      stopPruning();
      await listener.close();
    },

    cacheEntries: () => links.entries,
  };
}

const ABORTED = Symbol("aborted");

/** The request body as text, null when it is larger than MAX_FORM_BYTES, ABORTED when the client went away. */
function readForm(req: IncomingMessage): Promise<string | null | typeof ABORTED> {
  return new Promise((resolve) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > MAX_FORM_BYTES) {
      req.resume();
      return resolve(null);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        req.removeAllListeners("data");
        req.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(ABORTED));
  });
}
