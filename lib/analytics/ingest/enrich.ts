import { describeAgent } from "./agent.ts";
import { countryCode, plainAddress, type GeoLookup, type Place } from "./geo.ts";
import type { ClickEvent, TargetKind } from "../model.ts";
import { visitorKey } from "./visitor.ts";

// A redirect hands over what it saw (a ClickHit, cheap to make); the batch writer turns it into a
// stored ClickEvent (places, user agent, visitor key) off the request path. The address lives only
// in memory until then and is never stored.

export type ClickHit = {
  at: number;
  workspaceId: number;
  linkId: number;
  /** the short-link host the visitor used */
  domain: string;
  target: TargetKind;
  address: string | undefined;
  userAgent: string | undefined;
  referrer: string | undefined;
  /** GEO_COUNTRY_HEADER's value, set by a CDN in front */
  countryHeader: string | undefined;
  bot: boolean;
  qr: boolean;
  /** the URL the visit was sent to, before forwarding */
  destination?: string;
  /** the first Accept-Language primary subtag, lower case; null when absent */
  language?: string | null;
};

export const REFERRER_URL_MAX = 500;

/** Referrer host (lower case) and URL (at most REFERRER_URL_MAX characters); nulls when absent or not a URL. */
export function parseReferrer(raw: string | undefined): { host: string | null; url: string | null } {
  if (!raw) return { host: null, url: null };
  try {
    const u = new URL(raw.trim());
    if (!u.host) return { host: null, url: null };
    return { host: u.hostname.toLowerCase().slice(0, 253), url: u.href.slice(0, REFERRER_URL_MAX) };
  } catch {
    return { host: null, url: null };
  }
}

export function enrichHit(hit: ClickHit, geo: GeoLookup | null, salt: Buffer): ClickEvent {
  return batchEnricher(geo)(hit, salt);
}

/**
 * enrichHit for the hits of one batch, in order: a hit from the same address (and User-Agent, and
 * day) as the one before reuses its place and visitor key, and one with the same referrer its parsed
 * referrer (a burst of clicks from one visitor costs one HMAC). Only the previous hit's values are
 * remembered, so distinct visitors cost no more than enrichHit alone (a memo of every visitor in
 * the batch measured slower for them). Nothing outlives the returned function, dropped with the batch.
 */
export function batchEnricher(geo: GeoLookup | null): (hit: ClickHit, salt: Buffer) => ClickEvent {
  // null: nothing seen yet (a hit's values are strings or undefined)
  let lastAddress: string | undefined | null = null;
  let lastPlace: Place = NOWHERE;
  let lastVisitorAddress: string | undefined | null = null;
  let lastAgent: string | undefined | null = null;
  let lastSalt: Buffer | null = null;
  let lastVisitor = "";
  let lastReferrer: string | undefined | null = null;
  let lastParsedReferrer: { host: string | null; url: string | null } = { host: null, url: null };
  return (hit, salt) => {
    const agent = describeAgent(hit.userAgent);
    const address = plainAddress(hit.address);
    if (hit.address !== lastAddress) {
      lastPlace = geo ? geo.lookup(address ?? undefined) : NOWHERE;
      lastAddress = hit.address;
    }
    const place = lastPlace;
    const headerCountry = countryCode(hit.countryHeader);
    if (hit.referrer !== lastReferrer) {
      lastParsedReferrer = parseReferrer(hit.referrer);
      lastReferrer = hit.referrer;
    }
    const referrer = lastParsedReferrer;
    const visitorAddress = address ?? hit.address;
    if (visitorAddress !== lastVisitorAddress || hit.userAgent !== lastAgent || salt !== lastSalt) {
      lastVisitor = visitorKey(salt, visitorAddress, hit.userAgent);
      lastVisitorAddress = visitorAddress;
      lastAgent = hit.userAgent;
      lastSalt = salt;
    }
    return {
      at: hit.at,
      workspaceId: hit.workspaceId,
      linkId: hit.linkId,
      domain: hit.domain,
      target: hit.target,
      country: headerCountry ?? place.country,
      // a city from the database only goes with the database's own country
      city: headerCountry && headerCountry !== place.country ? null : place.city,
      referrerHost: referrer.host,
      referrerUrl: referrer.url,
      device: agent.device,
      browser: agent.browser,
      os: agent.os,
      bot: hit.bot,
      qr: hit.qr,
      visitor: lastVisitor,
      destination: hit.destination ?? null,
      language: hit.language ?? null,
    };
  };
}

const NOWHERE: Place = { country: null, city: null };
