import type { Issue } from "../errors.ts";
import { MAX_URL_LENGTH, type CreateLinkInput } from "./schemas.ts";
import { mergeUtm } from "./utm.ts";

// Input values as Link columns, shared by create and update: the destination with UTM values
// merged in, times from unix seconds, targeting in one canonical form.

/** The destination with the body's UTM values merged in, or the issue when it grows too long. */
export function mergedUrl(url: string, utm: CreateLinkInput["utm"]): string | Issue {
  const merged = mergeUtm(url, utm);
  return merged.length > MAX_URL_LENGTH
    ? { path: "utm", message: `with the UTM parameters, url is longer than ${MAX_URL_LENGTH} characters` }
    : merged;
}

export const toDate = (s: number | null | undefined) => (s === null || s === undefined ? null : new Date(s * 1000));

export type Targeting = { ios?: string; android?: string; geo?: Record<string, string> };

/** Targeting in one canonical form (sorted keys); null when it targets nothing. */
export function normalizeTargeting(t: CreateLinkInput["targeting"]): Targeting | null {
  if (!t) return null;
  const geo = Object.fromEntries(Object.entries(t.geo ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
  const out = {
    ...(t.android ? { android: t.android } : {}),
    ...(Object.keys(geo).length ? { geo } : {}),
    ...(t.ios ? { ios: t.ios } : {}),
  };
  return Object.keys(out).length ? out : null;
}

/** Whether the stored targeting (JSON) is the same as `next`, whatever the order of its keys. */
export function sameTargeting(stored: unknown, next: Targeting | null): boolean {
  return sameJson(stored, next);
}

/** Whether two JSON values are the same, whatever the order of object keys (PostgreSQL's jsonb reorders them); null and undefined alike. */
export function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): string =>
    v === null || v === undefined
      ? "null"
      : typeof v === "object" && !Array.isArray(v)
        ? `{${Object.keys(v as object)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
            .join(",")}}`
        : Array.isArray(v)
          ? `[${v.map(canon).join(",")}]`
          : JSON.stringify(v);
  return canon(a) === canon(b);
}
