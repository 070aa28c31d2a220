import { describeAgent } from "../analytics/ingest/agent.ts";
import { countryCode, type GeoLookup } from "../analytics/ingest/geo.ts";
import type { CompiledRouting, Visit } from "./decide.ts";
import { EMPTY_QUERY, parseVisitQuery } from "./visit-query.ts";

// What one request tells the destination decision (decide.ts), computed only as far as the link's
// routing reads it: a plain link costs no User-Agent parsing, no address lookup, no query parsing.

/** The first Accept-Language entry's primary subtag, lower case ("de-CH, en;q=0.8" -> "de"); null when absent or "*". */
export function primaryLanguage(header: string | undefined): string | null {
  if (!header) return null;
  let end = header.length;
  for (const stop of [",", ";", "-", "_"]) {
    const i = header.indexOf(stop);
    if (i !== -1 && i < end) end = i;
  }
  const tag = header.slice(0, end).trim().toLowerCase();
  return tag.length >= 1 && tag.length <= 8 && /^[a-z]+$/.test(tag) ? tag : null;
}

// analytics' OS names (ua-parser-js, lib/analytics/ingest/agent.ts) -> the rules' names
const RULE_OS: Record<string, string> = { iOS: "ios", Android: "android", Windows: "windows", macOS: "macos" };
const LINUX = new Set([
  "Linux",
  "Ubuntu",
  "Debian",
  "Fedora",
  "Mint",
  "Arch",
  "Gentoo",
  "CentOS",
  "Red Hat",
  "SUSE",
  "openSUSE",
  "Kubuntu",
]);

export function ruleOs(os: string | null): string {
  if (!os) return "other";
  return RULE_OS[os] ?? (LINUX.has(os) ? "linux" : "other");
}

export type VisitRequest = {
  url: string | undefined;
  userAgent: string | undefined;
  acceptLanguage: string | undefined;
  /** GEO_COUNTRY_HEADER's value */
  countryHeader: string | undefined;
  /** the client's address (lib/http/client-address.ts) */
  address: string | undefined;
  bot: boolean;
  stickyVariant: string | undefined;
  drawVariant: boolean;
};

/** The Visit for decideDestination, with only what `routing.needs` (language is always read: clicks record it). */
export function visitOf(r: VisitRequest, routing: CompiledRouting, geo: () => GeoLookup | null): Visit {
  const needs = routing.needs;
  const headerCountry = countryCode(r.countryHeader);
  const agent = needs.agent ? describeAgent(r.userAgent) : null;
  return {
    country: needs.country && !headerCountry ? (geo()?.lookup(r.address).country ?? null) : headerCountry,
    headerCountry,
    language: primaryLanguage(r.acceptLanguage),
    device: agent?.device ?? "other",
    os: agent ? ruleOs(agent.os) : "other",
    query: needs.query ? parseVisitQuery(r.url) : EMPTY_QUERY,
    bot: r.bot,
    stickyVariant: r.stickyVariant,
    drawVariant: r.drawVariant,
  };
}
