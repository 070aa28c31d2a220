import { describeAgent } from "./agent.ts";
import { countryCode, plainAddress, type GeoLookup, type Place } from "./geo.ts";
import type { ClickEvent, TargetKind } from "./sql.ts";
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
 * enrichHit for the hits of one batch: the geo lookup, the referrer parse and the visitor key (an
 * HMAC) are worked out once per distinct address, referrer and address + User-Agent in the batch
 * (repeat visits are common within a second). The memo lives only as long as the returned function,
 * which the caller drops with the batch, so no address is kept beyond it.
 */
export function batchEnricher(geo: GeoLookup | null): (hit: ClickHit, salt: Buffer) => ClickEvent {
  const places = new Map<string | null, Place>();
  const referrers = new Map<string | undefined, { host: string | null; url: string | null }>();
  const visitors = new Map<Buffer, Map<string, string>>();
  return (hit, salt) => {
    const agent = describeAgent(hit.userAgent);
    const address = plainAddress(hit.address);
    let place = places.get(address);
    if (!place) places.set(address, (place = geo ? geo.lookup(address ?? undefined) : NOWHERE));
    const headerCountry = countryCode(hit.countryHeader);
    let referrer = referrers.get(hit.referrer);
    if (!referrer) referrers.set(hit.referrer, (referrer = parseReferrer(hit.referrer)));
    let keys = visitors.get(salt);
    if (!keys) visitors.set(salt, (keys = new Map()));
    const visitorAddress = address ?? hit.address;
    const memoKey = `${visitorAddress ?? ""}\n${hit.userAgent ?? ""}`;
    let visitor = keys.get(memoKey);
    if (visitor === undefined) keys.set(memoKey, (visitor = visitorKey(salt, visitorAddress, hit.userAgent)));
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
      visitor,
    };
  };
}

const NOWHERE: Place = { country: null, city: null };
