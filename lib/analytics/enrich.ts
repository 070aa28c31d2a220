import { describeAgent } from "./agent.ts";
import { countryCode, plainAddress, type GeoLookup } from "./geo.ts";
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
  const agent = describeAgent(hit.userAgent);
  const address = plainAddress(hit.address);
  const place = geo ? geo.lookup(address ?? undefined) : { country: null, city: null };
  const headerCountry = countryCode(hit.countryHeader);
  const referrer = parseReferrer(hit.referrer);
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
    visitor: visitorKey(salt, address ?? hit.address, hit.userAgent),
  };
}
