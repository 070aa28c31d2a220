import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { GeoLookup } from "../analytics/ingest/geo.ts";
import { compileRouting, decideDestination, type CompiledRouting, type Decision } from "./decide.ts";
import { applyForwarding } from "./forward.ts";
import type { RedirectLink } from "./lifecycle.ts";
import { stickyCookie, stickyVariantOf } from "./sticky.ts";
import { visitOf } from "./visit.ts";

// One visit's destination, from the request: the Visit (visit.ts), the decision (decide.ts), the
// forwarding (forward.ts) and the variant cookie (sticky.ts). http.ts sends the answer.

export type DestinationContext = {
  /** GEO_COUNTRY_HEADER, lower case */
  geoHeader: string;
  trustProxy: boolean;
  geo: () => GeoLookup | null;
  clientAddress: (req: IncomingMessage) => string | undefined;
};

export type Destination = {
  decision: Decision;
  /** where the visitor is sent (the decision's URL with forwarding); null: the visit is refused (404) */
  location: string | null;
  /** the first Accept-Language primary subtag (recorded with the click) */
  language: string | null;
  /** Set-Cookie for a newly drawn variant */
  setCookie?: string;
};

/** The link's compiled routing; links loaded before routing existed (or built in tests) get theirs on first use. */
export function routingOf(link: RedirectLink): CompiledRouting {
  return (link.routing ??= compileRouting(link.url, null, link.targeting));
}

/** A request over https: TLS here, or https at the trusted proxy in front. */
function isHttps(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  const proto = req.headers["x-forwarded-proto"];
  return trustProxy && typeof proto === "string" && proto.split(",")[0].trim().toLowerCase() === "https";
}

/**
 * Where this visit goes. `bot`: bots never get a variant (they go to `url`); `head`: a HEAD request
 * is answered like a GET but draws no new variant and sets no cookie. `rest`: what follows /<code>/.
 */
export function destinationFor(
  req: IncomingMessage,
  link: RedirectLink,
  now: number,
  opts: { code: string; bot: boolean; head: boolean; rest: string | null },
  ctx: DestinationContext,
): Destination {
  const routing = routingOf(link);
  const stickyVariant = routing.variants ? stickyVariantOf(req.headers.cookie, link.id) : undefined;
  const visit = visitOf(
    {
      url: req.url,
      userAgent: req.headers["user-agent"],
      acceptLanguage: req.headers["accept-language"],
      countryHeader: req.headers[ctx.geoHeader] as string | undefined,
      address: routing.needs.country ? ctx.clientAddress(req) : undefined,
      bot: opts.bot,
      stickyVariant,
      drawVariant: !opts.head,
    },
    routing,
    ctx.geo,
  );
  const decision = decideDestination(routing, visit, now);
  let location: string | null = decision.url;
  if (opts.rest !== null && !routing.forwardPath) location = null;
  else if (routing.parts) {
    const parts = routing.parts.get(decision.url);
    location = parts ? applyForwarding(parts, routing.forwardQuery ? visit.query : null, routing.forwardPath ? opts.rest : null) : null;
  }
  const setCookie =
    decision.variant !== undefined && decision.variant !== stickyVariant && !opts.head && location !== null
      ? stickyCookie(link.id, opts.code, decision.variant, isHttps(req, ctx.trustProxy))
      : undefined;
  return { decision, location, language: visit.language, setCookie };
}
