import type { LinkDetail } from "@/lib/links/views";
import { isHttpUrl, withDefaultScheme } from "@/lib/links/url-input";
import { initialRouting, routingFieldsOf, routingWithSchemes, type RoutingValues } from "./routing-values";

// The link form's values, how a saved link fills them, and the request body they make. Times are
// entered in the browser's time zone and sent as unix seconds.

export type GeoRow = { key: number; country: string; url: string };
export type Values = {
  url: string;
  domain: string;
  alias: string;
  title: string;
  notes: string;
  folder: string;
  active: boolean;
  startsOn: string;
  expiresOn: string;
  maxClicks: string;
  fallbackUrl: string;
  password: string;
  removePassword: boolean;
  ios: string;
  android: string;
  geo: GeoRow[];
  /** forwarding, A/B variants, rules and the preview card (routing-values.ts) */
  routing: RoutingValues;
};

let geoKey = 0;

/** A fresh key for a new country row. */
export const nextGeoKey = () => ++geoKey;

function toLocalInput(unix: number | null): string {
  if (unix === null) return "";
  const d = new Date(unix * 1000);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function fromLocalInput(v: string): number | null | "invalid" {
  if (!v) return null;
  const t = new Date(v).getTime();
  return Number.isNaN(t) ? "invalid" : Math.floor(t / 1000);
}

export function initialValues(link: LinkDetail | undefined, defaultHost: string, folder: string): Values {
  return {
    url: link?.url ?? "",
    domain: link?.domain ?? defaultHost,
    alias: link?.code ?? "",
    title: link?.title ?? "",
    notes: link?.notes ?? "",
    folder: link?.folder ?? folder,
    active: link?.active ?? true,
    startsOn: toLocalInput(link?.startsOn ?? null),
    expiresOn: toLocalInput(link?.expiresOn ?? null),
    maxClicks: link?.maxClicks ? String(link.maxClicks) : "",
    fallbackUrl: link?.fallbackUrl ?? "",
    password: "",
    removePassword: false,
    ios: link?.targeting?.ios ?? "",
    android: link?.targeting?.android ?? "",
    geo: Object.entries(link?.targeting?.geo ?? {}).map(([country, url]) => ({ key: ++geoKey, country, url })),
    routing: initialRouting(link),
  };
}

export function targetingOf(v: Values) {
  const geo = Object.fromEntries(
    v.geo.filter((g) => g.country.trim() || g.url.trim()).map((g) => [g.country.trim().toUpperCase(), g.url.trim()]),
  );
  const t = {
    ...(v.ios.trim() ? { ios: v.ios.trim() } : {}),
    ...(v.android.trim() ? { android: v.android.trim() } : {}),
    ...(Object.keys(geo).length ? { geo } : {}),
  };
  return Object.keys(t).length ? t : null;
}

const WEB_ADDRESS = "Enter a web address, such as https://example.com/page.";

/**
 * The values with every web address completed as typed (`example.com/x` becomes
 * `https://example.com/x`, see lib/links/url-input.ts): the form shows what will be saved.
 */
export function withSchemes(v: Values): Values {
  return {
    ...v,
    url: withDefaultScheme(v.url),
    fallbackUrl: withDefaultScheme(v.fallbackUrl),
    ios: withDefaultScheme(v.ios),
    android: withDefaultScheme(v.android),
    geo: v.geo.map((g) => ({ ...g, url: withDefaultScheme(g.url) })),
    routing: routingWithSchemes(v.routing),
  };
}

/**
 * The server's message for a field, as shown beside it (whose label already names it): "Must be at
 * most 200 characters." for "title: must be at most 200 characters"; a part of the field keeps its
 * name ("geo.DE: must be ..."). Messages that are already sentences pass unchanged.
 */
export function besideField(field: string, text: string): string {
  if (!text.startsWith(`${field}: `)) return text;
  const message = text.slice(field.length + 2);
  const sentence = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Problems the form finds before asking the server, in plain words, by field. */
function checkValues(v: Values, start: Values, editing: boolean, nowSeconds: number): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!v.url.trim()) errors.url = "Enter the address visitors should go to, such as https://example.com/page.";
  else if (!isHttpUrl(v.url.trim())) errors.url = `This is not a web address. ${WEB_ADDRESS}`;
  if (v.fallbackUrl.trim() && !isHttpUrl(v.fallbackUrl.trim())) errors.fallbackUrl = `This is not a web address. ${WEB_ADDRESS}`;
  const badTarget = [v.ios, v.android, ...v.geo.map((g) => g.url)].some((u) => u.trim() && !isHttpUrl(u.trim()));
  if (badTarget) errors.targeting = `A targeting address is not a web address. ${WEB_ADDRESS}`;
  const startsOn = fromLocalInput(v.startsOn);
  const expiresOn = fromLocalInput(v.expiresOn);
  if (startsOn === "invalid") errors.startsOn = "Enter a date and time.";
  if (expiresOn === "invalid") errors.expiresOn = "Enter a date and time.";
  // A link born expired would never redirect. An edit that leaves a past expiry alone is fine.
  const expiryChanged = !editing || v.expiresOn !== start.expiresOn;
  if (typeof expiresOn === "number" && expiresOn <= nowSeconds && expiryChanged)
    errors.expiresOn = "This time has already passed, so the link would never work. Pick a later time, or leave it empty.";
  else if (typeof expiresOn === "number" && typeof startsOn === "number" && startsOn >= expiresOn)
    errors.expiresOn = "The link must expire after it starts.";
  return errors;
}

/** The request body: every filled field for a create; only what changed for an edit. */
export function bodyOf(
  v: Values,
  start: Values,
  editing: boolean,
  hasPassword: boolean,
  nowSeconds = Math.floor(Date.now() / 1000),
): { body: Record<string, unknown>; errors: Record<string, string> } {
  const errors = checkValues(v, start, editing, nowSeconds);
  const num = (s: string) => (s.trim() === "" ? null : Number(s));
  const startsOn = fromLocalInput(v.startsOn);
  const expiresOn = fromLocalInput(v.expiresOn);
  const maxClicks = num(v.maxClicks);
  if (maxClicks !== null && !Number.isInteger(maxClicks)) errors.maxClicks = "Enter a whole number, or leave it empty.";
  const full: Record<string, unknown> = {
    url: v.url.trim(),
    domain: v.domain,
    alias: v.alias.trim(),
    title: v.title,
    notes: v.notes.trim() === "" ? null : v.notes,
    folder: v.folder,
    active: v.active,
    startsOn,
    expiresOn,
    maxClicks,
    fallbackUrl: v.fallbackUrl.trim() === "" ? null : v.fallbackUrl.trim(),
    targeting: targetingOf(v),
    ...routingFieldsOf(v.routing),
  };
  if (!editing) {
    const body: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(full)) {
      if (val === null || val === "" || (k === "active" && val === true)) continue;
      body[k] = val;
    }
    if (v.password) body.password = v.password;
    return { body, errors };
  }
  const before = bodyOf(start, start, false, false, 0).body;
  const body: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(full)) {
    if (k === "domain") continue; // a link's domain cannot change
    const was =
      k === "active" ? start.active : (before[k] ?? (k === "title" || k === "folder" || k === "url" || k === "alias" ? "" : null));
    if (JSON.stringify(val) !== JSON.stringify(was)) body[k] = val;
  }
  if (body.alias === "") errors.alias = "A link needs a code; enter one.";
  if (v.password) body.password = v.password;
  else if (v.removePassword && hasPassword) body.password = null;
  return { body, errors };
}

/** What every section of the form gets from it. */
export type LinkSectionProps = {
  v: Values;
  set: <K extends keyof Values>(k: K, value: Values[K]) => void;
  id: (name: string) => string;
  err: (k: string) => string | undefined;
  described: (k: string) => { "aria-invalid"?: true; "aria-describedby"?: string };
  upgrade: (what: string) => React.ReactNode;
};
