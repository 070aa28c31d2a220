import type { LinkDetail } from "@/lib/links/views";
import type { Preview, RedirectRule, Variant } from "@/lib/links/routing-schema";
import { withDefaultScheme } from "@/lib/links/url-input";

// The link form's routing values (forwarding, A/B variants, rules, preview card), how a saved link
// fills them and the API fields they make. Conditions the form does not edit (a rule's times, days
// and hours, set through the API) are kept as they are in `kept`.

export type VariantRow = { key: number; url: string; weight: number };
export type RuleRow = {
  key: number;
  url: string;
  /** comma or space separated, as typed */
  countries: string;
  languages: string;
  devices: string[];
  os: string[];
  /** name=value pairs joined by &, "name" alone for any value */
  query: string;
  kept: Omit<RedirectRule, "url" | "countries" | "languages" | "devices" | "os" | "query">;
};
export type PreviewValues = { title: string; description: string; image: string };
export type RoutingValues = {
  forwardQuery: boolean;
  forwardPath: boolean;
  variants: VariantRow[];
  rules: RuleRow[];
  preview: PreviewValues;
};

let rowKey = 0;
/** A fresh key for a new variant or rule row. */
export const nextRowKey = () => ++rowKey;

const TOTAL = 100;

/** `count` whole weights of at least 1 that sum to 100, as even as can be (the first ones get the rest). */
export function evenWeights(count: number): number[] {
  const base = Math.floor(TOTAL / count);
  return Array.from({ length: count }, (_, i) => base + (i < TOTAL - base * count ? 1 : 0));
}

/**
 * The weights after row `index` is set to `weight`: the others share the rest in proportion to what
 * they had (each at least 1), so the sum stays 100 whatever is typed or dragged.
 */
export function setWeight(weights: number[], index: number, weight: number): number[] {
  const n = weights.length;
  const w = Math.min(TOTAL - (n - 1), Math.max(1, Math.round(Number.isFinite(weight) ? weight : 1)));
  const others = weights.map((x, i) => (i === index ? 0 : Math.max(1, x)));
  const otherSum = others.reduce((s, x) => s + x, 0);
  const rest = TOTAL - w;
  const out = others.map((x, i) => (i === index ? w : Math.max(1, Math.floor((x / otherSum) * rest))));
  // hand out what rounding left (or take back what the minimum of 1 added), largest first
  let diff = TOTAL - out.reduce((s, x) => s + x, 0);
  const order = out.map((_, i) => i).filter((i) => i !== index);
  order.sort((a, b) => out[b] - out[a]);
  for (let k = 0; diff !== 0 && order.length; k = (k + 1) % order.length) {
    const i = order[k];
    if (diff > 0) {
      out[i]++;
      diff--;
    } else if (out[i] > 1) {
      out[i]--;
      diff++;
    }
  }
  return out;
}

const list = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

function queryText(q: Record<string, string> | undefined): string {
  if (!q) return "";
  return Object.entries(q)
    .map(([k, v]) => (v === "*" ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
    .join("&");
}

function queryOf(s: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const piece of s.replace(/^\?/, "").split(/[&\n]/)) {
    if (!piece.trim()) continue;
    const eq = piece.indexOf("=");
    const decode = (x: string) => {
      try {
        return decodeURIComponent(x.replaceAll("+", " "));
      } catch {
        return x;
      }
    };
    if (eq === -1) out[decode(piece.trim())] = "*";
    else out[decode(piece.slice(0, eq).trim())] = decode(piece.slice(eq + 1).trim());
  }
  return Object.keys(out).length ? out : undefined;
}

export function ruleRowOf(r: RedirectRule): RuleRow {
  const { url, countries, languages, devices, os, query, ...kept } = r;
  return {
    key: nextRowKey(),
    url,
    countries: (countries ?? []).join(", "),
    languages: (languages ?? []).join(", "),
    devices: [...(devices ?? [])],
    os: [...(os ?? [])],
    query: queryText(query),
    kept,
  };
}

export const emptyRuleRow = (): RuleRow => ({
  key: nextRowKey(),
  url: "",
  countries: "",
  languages: "",
  devices: [],
  os: [],
  query: "",
  kept: {},
});

export function initialRouting(link: LinkDetail | undefined): RoutingValues {
  return {
    forwardQuery: link?.forwardQuery ?? false,
    forwardPath: link?.forwardPath ?? false,
    variants: (link?.variants ?? []).map((v) => ({ key: nextRowKey(), url: v.url, weight: v.weight })),
    rules: (link?.rules ?? []).map(ruleRowOf),
    preview: { title: link?.preview?.title ?? "", description: link?.preview?.description ?? "", image: link?.preview?.image ?? "" },
  };
}

/** One rule as the API takes it (the server checks it; an empty condition is left out). */
export function ruleOf(r: RuleRow): RedirectRule {
  const countries = list(r.countries).map((c) => c.toUpperCase());
  const languages = list(r.languages).map((l) => l.toLowerCase());
  const query = queryOf(r.query);
  return {
    url: r.url.trim(),
    ...(countries.length ? { countries } : {}),
    ...(languages.length ? { languages } : {}),
    ...(r.devices.length ? { devices: r.devices as RedirectRule["devices"] } : {}),
    ...(r.os.length ? { os: r.os as RedirectRule["os"] } : {}),
    ...(query ? { query } : {}),
    ...r.kept,
  };
}

/** The routing fields of a body: null for what is not set (forwarding unchecked, no rows, an empty card). */
export function routingFieldsOf(v: RoutingValues): {
  forwardQuery: true | null;
  forwardPath: true | null;
  variants: Variant[] | null;
  rules: RedirectRule[] | null;
  preview: Preview | null;
} {
  const p = v.preview;
  const preview = {
    ...(p.title.trim() ? { title: p.title.trim() } : {}),
    ...(p.description.trim() ? { description: p.description.trim() } : {}),
    ...(p.image.trim() ? { image: p.image.trim() } : {}),
  };
  return {
    forwardQuery: v.forwardQuery ? true : null,
    forwardPath: v.forwardPath ? true : null,
    variants: v.variants.length ? v.variants.map((x) => ({ url: x.url.trim(), weight: x.weight })) : null,
    rules: v.rules.length ? v.rules.map(ruleOf) : null,
    preview: Object.keys(preview).length ? preview : null,
  };
}

/** The routing values with every web address completed as typed (see link-values.ts withSchemes). */
export function routingWithSchemes(v: RoutingValues): RoutingValues {
  return {
    ...v,
    variants: v.variants.map((x) => ({ ...x, url: withDefaultScheme(x.url) })),
    rules: v.rules.map((r) => ({ ...r, url: withDefaultScheme(r.url) })),
  };
}
