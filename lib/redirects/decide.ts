import { createHash } from "node:crypto";
import type { LinkRouting, Preview, RedirectRule } from "../links/routing-schema.ts";
import { forwardParts, type DestinationParts } from "./forward.ts";
import type { Targeting, TargetKind } from "./lifecycle.ts";
import type { VisitQuery } from "./visit-query.ts";

// Which URL one visit to an open link is sent to, as pure functions (no I/O, no clock of its own):
// compileRouting runs once per cached link and precomputes everything a visit needs (sets, time-zone
// clocks, query matchers, split destination URLs); decideDestination runs per visit and only looks
// things up. Order (CONTRACT.md "Link routing"): first matching rule, then targeting (ios/android by
// OS, geo by the country header), then an A/B variant (counted visits only), then `url`. Lifecycle
// and password are decided before this (lifecycle.ts, http.ts). The app's "what would this visitor
// get" tester calls the same two functions.

/** What the redirect knows about a visitor (built per request by lib/redirects/visit.ts). */
export type Visit = {
  /** as analytics finds it: the country header, else the address's country (upper case), or null */
  country: string | null;
  /** GEO_COUNTRY_HEADER's country only (targeting.geo answers by the header: CONTRACT.md "Redirects") */
  headerCountry?: string | null;
  /** the first Accept-Language entry's primary subtag, lower case, or null */
  language: string | null;
  /** desktop | mobile | tablet | other (lib/analytics/ingest/agent.ts) */
  device: string;
  /** ios | android | windows | macos | linux | other (rule names, from analytics' OS) */
  os: string;
  query: VisitQuery;
  bot: boolean;
  /** the variant id the visitor's cookie names, if any */
  stickyVariant?: string;
  /** false: no new variant is drawn (HEAD); a sticky one is still honoured */
  drawVariant?: boolean;
};

export type Decision = {
  /** the URL chosen, before forwarding (recorded as the click's destination) */
  url: string;
  kind: TargetKind;
  /** the variant's id (kind "variant") */
  variant?: string;
  /** the 0-based index of the rule that matched (kind "rule") */
  rule?: number;
};

type CompiledRule = {
  url: string;
  countries: Set<string> | null;
  languages: Set<string> | null;
  devices: Set<string> | null;
  os: Set<string> | null;
  /** name -> exact value, null for "*" (present with any value) */
  query: [string, string | null][] | null;
  afterMs: number | null;
  beforeMs: number | null;
  /** bit d set: day d (0 = Sunday) allowed */
  days: number | null;
  hours: [number, number] | null;
  clock: ZoneClock | null;
};

export type CompiledVariant = { id: string; url: string; /** upper bound of its share of [0, 100) */ until: number };

export type CompiledRouting = {
  url: string;
  targeting: Targeting | null;
  rules: CompiledRule[];
  variants: CompiledVariant[] | null;
  forwardQuery: boolean;
  forwardPath: boolean;
  preview: Preview | null;
  /** every URL a decision can return, split once for forwarding (only when forwarding is on) */
  parts: Map<string, DestinationParts> | null;
  /** which parts of a visit the decision reads: the request handler computes only those */
  needs: { agent: boolean; country: boolean; language: boolean; query: boolean };
};

/** A variant's id in its cookie: derived from its URL, so editing the split keeps visitors whose variant still exists. */
export function variantId(url: string): string {
  return createHash("sha256").update(url).digest("base64url").slice(0, 12);
}

export function compileRouting(url: string, routing: LinkRouting | null, targeting: Targeting | null): CompiledRouting {
  const rules = (routing?.rules ?? []).map(compileRule);
  let variants: CompiledVariant[] | null = null;
  if (routing?.variants?.length) {
    let sum = 0;
    variants = routing.variants.map((v) => ({ id: variantId(v.url), url: v.url, until: (sum += v.weight) }));
  }
  const forwardQuery = routing?.forwardQuery === true;
  const forwardPath = routing?.forwardPath === true;
  let parts: Map<string, DestinationParts> | null = null;
  if (forwardQuery || forwardPath) {
    parts = new Map();
    const urls = [url, ...rules.map((r) => r.url), ...(variants ?? []).map((v) => v.url)];
    if (targeting) urls.push(...[targeting.ios, targeting.android, ...Object.values(targeting.geo ?? {})].filter((u): u is string => !!u));
    for (const u of urls) if (!parts.has(u)) parts.set(u, forwardParts(u));
  }
  return {
    url,
    targeting,
    rules,
    variants,
    forwardQuery,
    forwardPath,
    preview: routing?.preview ?? null,
    parts,
    needs: {
      agent: rules.some((r) => r.devices || r.os) || Boolean(targeting?.ios || targeting?.android),
      country: rules.some((r) => r.countries),
      language: rules.some((r) => r.languages),
      query: forwardQuery || rules.some((r) => r.query),
    },
  };
}

function compileRule(r: RedirectRule): CompiledRule {
  const set = (list: readonly string[] | undefined, norm: (s: string) => string) => (list ? new Set(list.map(norm)) : null);
  return {
    url: r.url,
    countries: set(r.countries, (c) => c.toUpperCase()),
    languages: set(r.languages, (l) => l.toLowerCase()),
    devices: set(r.devices, (d) => d),
    os: set(r.os, (o) => o),
    query: r.query ? Object.entries(r.query).map(([name, value]) => [name, value === "*" ? null : value]) : null,
    afterMs: r.after !== undefined ? r.after * 1000 : null,
    beforeMs: r.before !== undefined ? r.before * 1000 : null,
    days: r.days ? r.days.reduce((bits, d) => bits | (1 << d), 0) : null,
    hours: r.hours ? [r.hours[0], r.hours[1]] : null,
    clock: r.days || r.hours ? zoneClock(r.timeZone ?? "UTC") : null,
  };
}

function ruleMatches(r: CompiledRule, v: Visit, nowMs: number): boolean {
  if (r.countries && (v.country === null || !r.countries.has(v.country))) return false;
  if (r.languages && (v.language === null || !r.languages.has(v.language))) return false;
  if (r.devices && !r.devices.has(v.device)) return false;
  if (r.os && !r.os.has(v.os)) return false;
  if (r.afterMs !== null && nowMs < r.afterMs) return false;
  if (r.beforeMs !== null && nowMs >= r.beforeMs) return false;
  if (r.clock) {
    const { day, hour } = r.clock.at(nowMs);
    if (r.days !== null && !(r.days & (1 << day))) return false;
    if (r.hours && (hour < r.hours[0] || hour >= r.hours[1])) return false;
  }
  if (r.query) {
    for (const [name, value] of r.query) {
      if (value === null ? !v.query.has(name) : !v.query.hasValue(name, value)) return false;
    }
  }
  return true;
}

/** The destination for one visit (see the file's header for the order). `random` draws in [0, 1). */
export function decideDestination(c: CompiledRouting, v: Visit, nowMs: number, random: () => number = Math.random): Decision {
  for (let i = 0; i < c.rules.length; i++) if (ruleMatches(c.rules[i], v, nowMs)) return { url: c.rules[i].url, kind: "rule", rule: i };
  const t = c.targeting;
  if (t) {
    if (v.os === "ios" && t.ios) return { url: t.ios, kind: "ios" };
    if (v.os === "android" && t.android) return { url: t.android, kind: "android" };
    const country = v.headerCountry;
    if (t.geo && country) {
      const url = t.geo[country];
      if (url) return { url, kind: "geo" };
    }
  }
  if (c.variants && !v.bot) {
    const sticky = v.stickyVariant !== undefined ? c.variants.find((x) => x.id === v.stickyVariant) : undefined;
    if (sticky) return { url: sticky.url, kind: "variant", variant: sticky.id };
    if (v.drawVariant !== false) {
      const roll = random() * 100;
      const chosen = c.variants.find((x) => roll < x.until) ?? c.variants[c.variants.length - 1];
      return { url: chosen.url, kind: "variant", variant: chosen.id };
    }
  }
  return { url: c.url, kind: "destination" };
}

// ---- days and hours in a time zone -------------------------------------------------------------

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
// Every time zone's offset is a whole number of quarter hours, so the day and hour are the same
// throughout each UTC quarter hour: one formatToParts per zone per 15 minutes.
const QUARTER_HOUR_MS = 15 * 60_000;

export class ZoneClock {
  private readonly format: Intl.DateTimeFormat;
  private quarter = NaN;
  private last = { day: 0, hour: 0 };

  constructor(timeZone: string) {
    this.format = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "numeric", hourCycle: "h23" });
  }

  /** The weekday (0 = Sunday) and hour (0..23) at `ms` in this zone. */
  at(ms: number): { day: number; hour: number } {
    const quarter = Math.floor(ms / QUARTER_HOUR_MS);
    if (quarter !== this.quarter) {
      let day = 0;
      let hour = 0;
      for (const p of this.format.formatToParts(ms)) {
        if (p.type === "weekday") day = WEEKDAYS[p.value] ?? 0;
        else if (p.type === "hour") hour = Number(p.value) % 24;
      }
      this.last = { day, hour };
      this.quarter = quarter;
    }
    return this.last;
  }
}

// one clock per zone name for the process (there are a few hundred zones at most)
const clocks = new Map<string, ZoneClock>();
function zoneClock(timeZone: string): ZoneClock {
  let clock = clocks.get(timeZone);
  if (!clock) {
    try {
      clock = new ZoneClock(timeZone);
    } catch {
      clock = new ZoneClock("UTC"); // stored data is validated on write; a zone Intl no longer knows falls back to UTC
    }
    clocks.set(timeZone, clock);
  }
  return clock;
}
