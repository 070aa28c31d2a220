import { z } from "zod";

// UTM values merged into a destination URL. The stored url is the merged URL, so redirects and
// webhooks need nothing new. Only the query string changes: parameters other than the five UTM
// names keep their exact text and order, a UTM parameter already there is replaced in place (later
// copies dropped), new ones are appended, and the fragment stays at the end.

export const UTM_FIELDS = ["source", "medium", "campaign", "term", "content"] as const;
export type UtmField = (typeof UTM_FIELDS)[number];
export type Utm = Partial<Record<UtmField, string>>;

const utmValue = z
  .string()
  .trim()
  .max(200, "must be at most 200 characters")
  .refine((v) => !v.includes("\u0000"), "must not contain NUL characters");

/**
 * The `utm` field of link bodies. A value sets utm_<name>; "" removes utm_<name> from the URL;
 * an omitted name leaves it as it is.
 */
export const utmSchema = z
  .strictObject({
    source: utmValue.optional().describe("utm_source, e.g. newsletter"),
    medium: utmValue.optional().describe("utm_medium, e.g. email"),
    campaign: utmValue.optional().describe("utm_campaign, e.g. spring_sale"),
    term: utmValue.optional().describe("utm_term"),
    content: utmValue.optional().describe("utm_content"),
  })
  .describe(
    'UTM parameters merged into url\'s query string (an existing parameter of the same name is replaced; "" removes it). The stored url is the merged URL.',
  );

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/** Percent-encodes a query value (spaces as %20; everything outside unreserved characters escaped). */
export function encodeQueryValue(v: string): string {
  return encodeURIComponent(v).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

/** `url` with the UTM values merged into its query string (see the top of this file). */
export function mergeUtm(url: string, utm: Utm | undefined | null): string {
  if (!utm) return url;
  const given = UTM_FIELDS.filter((f) => utm[f] !== undefined);
  if (given.length === 0) return url;
  const hashAt = url.indexOf("#");
  const fragment = hashAt === -1 ? "" : url.slice(hashAt);
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf("?");
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? "" : beforeHash.slice(queryAt + 1);

  const pair = (f: UtmField) => `utm_${f}=${encodeQueryValue(utm[f]!)}`;
  const placed = new Set<UtmField>();
  const parts: string[] = [];
  for (const part of query === "" ? [] : query.split("&")) {
    const name = decodeName(part.split("=")[0]);
    const field = given.find((f) => `utm_${f}` === name);
    if (!field) {
      parts.push(part);
      continue;
    }
    if (placed.has(field)) continue;
    placed.add(field);
    if (utm[field] !== "") parts.push(pair(field));
  }
  for (const f of given) if (!placed.has(f) && utm[f] !== "") parts.push(pair(f));
  const nonEmpty = parts.filter((p) => p !== "");
  return base + (nonEmpty.length ? "?" + nonEmpty.join("&") : "") + fragment;
}

/** The UTM values a URL carries (for the link form and analytics grouping). */
export function utmOf(url: string): Utm {
  const out: Utm = {};
  try {
    const params = new URL(url).searchParams;
    for (const f of UTM_FIELDS) {
      const v = params.get(`utm_${f}`);
      if (v !== null) out[f] = v;
    }
  } catch {
    // not a URL: no UTM values
  }
  return out;
}
