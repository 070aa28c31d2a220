import type { Feature } from "../plans/index.ts";
import type { LinkRouting, Preview, RedirectRule, Variant } from "./routing-schema.ts";

// Link routing between a request and Link.routing: the canonical stored form (only what is set,
// lists of conditions sorted and without repeats, so an edit that changes nothing compares equal),
// a PATCH applied to the stored form, the API link object's view of it, and the plan features and
// destination URLs it asks for. The shapes themselves are in routing-schema.ts.

/** The routing fields of a parsed create body or PATCH (undefined: not given; null or false: clear). */
export type RoutingInput = {
  forwardQuery?: boolean | null;
  forwardPath?: boolean | null;
  variants?: Variant[] | null;
  rules?: RedirectRule[] | null;
  preview?: Preview | null;
};

/** The routing fields as the API link object shows them: all present, unset ones false or null. */
export type RoutingView = {
  forwardQuery: boolean;
  forwardPath: boolean;
  variants: Variant[] | null;
  rules: RedirectRule[] | null;
  preview: Preview | null;
};

const sortedUnique = <T extends string | number>(list: T[]): T[] =>
  [...new Set(list)].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : 1));

/** The IANA name Intl resolves a zone to (Etc/UTC and utc are UTC), or the name as given. */
function canonicalTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return tz;
  }
}

/** One rule in canonical form: keys in the schema's order, condition lists sorted and unique, the default UTC left out. */
export function canonicalRule(r: RedirectRule): RedirectRule {
  const out: RedirectRule = { url: r.url };
  if (r.countries) out.countries = sortedUnique(r.countries);
  if (r.languages) out.languages = sortedUnique(r.languages.map((l) => l.toLowerCase()));
  if (r.devices) out.devices = sortedUnique(r.devices);
  if (r.os) out.os = sortedUnique(r.os);
  if (r.query) out.query = Object.fromEntries(Object.entries(r.query).sort(([a], [b]) => (a < b ? -1 : 1)));
  if (r.after !== undefined) out.after = r.after;
  if (r.before !== undefined) out.before = r.before;
  if (r.days) out.days = sortedUnique(r.days);
  if (r.hours) out.hours = [r.hours[0], r.hours[1]];
  const tz = r.timeZone === undefined ? "UTC" : canonicalTimeZone(r.timeZone);
  if (tz !== "UTC") out.timeZone = tz;
  return out;
}

function canonicalPreview(p: Preview): Preview | undefined {
  const out: Preview = {};
  if (p.title) out.title = p.title;
  if (p.description) out.description = p.description;
  if (p.image) out.image = p.image;
  return Object.keys(out).length ? out : undefined;
}

/** Link.routing as stored (null, or an object written by canonicalRouting). */
export function storedRouting(stored: unknown): LinkRouting {
  return stored && typeof stored === "object" && !Array.isArray(stored) ? (stored as LinkRouting) : {};
}

/**
 * The routing after `input` is applied to `stored` (a create: stored null), in canonical form:
 * only what is set, in a fixed key order; null when nothing is. A field not given keeps its
 * stored value; null clears it, as false does forwardQuery and forwardPath and [] does rules.
 */
export function applyRouting(stored: unknown, input: RoutingInput): LinkRouting | null {
  const cur = storedRouting(stored);
  const pick = <K extends keyof RoutingInput>(k: K) => (input[k] === undefined ? cur[k] : input[k]);
  const out: LinkRouting = {};
  if (pick("forwardQuery") === true) out.forwardQuery = true;
  if (pick("forwardPath") === true) out.forwardPath = true;
  const variants = pick("variants");
  if (variants && variants.length) out.variants = variants.map((v) => ({ url: v.url, weight: v.weight }));
  const rules = pick("rules");
  if (rules && rules.length) out.rules = rules.map(canonicalRule);
  const preview = pick("preview");
  const p = preview ? canonicalPreview(preview) : undefined;
  if (p) out.preview = p;
  return Object.keys(out).length ? out : null;
}

/** The API link object's routing fields of a stored link. */
export function routingView(stored: unknown): RoutingView {
  const r = storedRouting(stored);
  return {
    forwardQuery: r.forwardQuery === true,
    forwardPath: r.forwardPath === true,
    variants: r.variants ?? null,
    rules: r.rules ?? null,
    preview: r.preview ?? null,
  };
}

/** The plan features the routing fields of a body ask for, in the order they are checked (clearing asks for none). */
export function routingFeatures(input: RoutingInput): Feature[] {
  const out: Feature[] = [];
  if (input.forwardPath === true || (input.rules?.length ?? 0) > 0) out.push("RedirectRules");
  if (input.variants) out.push("ABTesting");
  if (input.preview) out.push("LinkPreviews");
  return out;
}

/** Every URL the routing fields hold, with its field's name (all pass the checks of a destination). */
export function routingUrls(input: RoutingInput): { field: string; url: string }[] {
  const out: { field: string; url: string }[] = [];
  input.variants?.forEach((v, i) => out.push({ field: `variants.${i}.url`, url: v.url }));
  input.rules?.forEach((r, i) => out.push({ field: `rules.${i}.url`, url: r.url }));
  if (input.preview?.image) out.push({ field: "preview.image", url: input.preview.image });
  return out;
}
