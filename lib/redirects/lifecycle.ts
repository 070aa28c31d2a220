// The redirect decision for one link, as pure functions: what state the link is in at a given
// moment (lifecycle) and what that state answers.
// Times are compared per request, so an expiry or a start time needs no cache invalidation.
// Rules, variants and forwarding are decided in decide.ts.

import type { CompiledRouting } from "./decide.ts";

export type Targeting = { ios?: string; android?: string; geo?: Record<string, string> };

/** What the redirect path knows about a link (a snapshot loaded from the database, then cached). */
export type RedirectLink = {
  id: number;
  workspaceId: number;
  /** 0 = the default short domain, else the custom domain's id */
  domainKey: number;
  url: string;
  /** false when the link or its workspace is switched off */
  active: boolean;
  /** unix milliseconds, or null */
  startsOn: number | null;
  expiresOn: number | null;
  maxClicks: number | null;
  /** clicks when loaded; for capped links raised to maxClicks once the cap is seen reached */
  clicks: number;
  fallbackUrl: string | null;
  passwordHash: string | null;
  targeting: Targeting | null;
  /** rules, variants, forwarding, preview and targeting, compiled once per load (decide.ts); absent: none */
  routing?: CompiledRouting;
  /** a destination's host was put on DESTINATION_DENYLIST after the link was saved (lib/redirects/denylist.ts) */
  denied?: boolean;
};

export type Blocked = "inactive" | "denied" | "not_started" | "expired" | "cap_reached";
export type LifecycleState = "open" | Blocked;

/** Order matters: an inactive link says "inactive" even when it has also expired. */
export function lifecycleState(link: RedirectLink, now: number): LifecycleState {
  if (!link.active) return "inactive";
  if (link.denied) return "denied";
  if (link.startsOn !== null && now < link.startsOn) return "not_started";
  if (link.expiresOn !== null && now >= link.expiresOn) return "expired";
  if (link.maxClicks !== null && link.clicks >= link.maxClicks) return "cap_reached";
  return "open";
}

/** Inactive and not started are 404, expired and cap reached 410, denied 403. */
export const BLOCKED_STATUS: Record<Blocked, 403 | 404 | 410> = {
  inactive: 404,
  denied: 403,
  not_started: 404,
  expired: 410,
  cap_reached: 410,
};

export type BlockedAnswer = { kind: "fallback"; url: string } | { kind: "page"; status: 403 | 404 | 410; reason: Blocked };

/**
 * A blocked link sends visitors to its fallback URL when it has one (never counted as a click);
 * a denied one never redirects anywhere (its fallback may be what is denied).
 */
export function blockedAnswer(link: Pick<RedirectLink, "fallbackUrl">, reason: Blocked): BlockedAnswer {
  if (link.fallbackUrl && reason !== "denied") return { kind: "fallback", url: link.fallbackUrl };
  return { kind: "page", status: BLOCKED_STATUS[reason], reason };
}

/** Which of the link's URLs a visitor was sent to (recorded with each click; chosen in decide.ts). */
export type TargetKind = "destination" | "ios" | "android" | "geo" | "rule" | "variant";

/**
 * A URL as it may go into a Location header: WHATWG-normalised (IDN hosts in punycode, other
 * characters percent-encoded). Null for anything that is not an absolute http(s) URL.
 */
export function locationUrl(raw: unknown): string | null {
  if (typeof raw !== "string" || !raw) return null;
  try {
    const u = new URL(raw);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    return u.href;
  } catch {
    return null;
  }
}

/** The stored targeting JSON, keeping only well-formed entries (bad data never breaks a redirect). */
export function parseTargeting(raw: unknown): Targeting | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const src = raw as Record<string, unknown>;
  const out: Targeting = {};
  const ios = locationUrl(src.ios);
  const android = locationUrl(src.android);
  if (ios) out.ios = ios;
  if (android) out.android = android;
  if (src.geo && typeof src.geo === "object" && !Array.isArray(src.geo)) {
    const geo: Record<string, string> = {};
    for (const [cc, url] of Object.entries(src.geo as Record<string, unknown>)) {
      const u = locationUrl(url);
      if (u && /^[A-Za-z]{2}$/.test(cc)) geo[cc.toUpperCase()] = u;
    }
    if (Object.keys(geo).length) out.geo = geo;
  }
  return out.ios || out.android || out.geo ? out : null;
}
