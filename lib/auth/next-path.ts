import { config } from "../config/index.ts";

// Where to go after signing in (`?next=`). Only a path on the app's own origin is accepted, else
// the fallback: a `next` such as `//evil.example`, `/\evil.example` (browsers read `\` as `/`), a
// path with control characters (`/\t/evil.example` loses its tab in the URL parser) or a
// percent-encoded form of any of these would send the visitor to another site.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_LENGTH = 2048;
/** Percent-decoding rounds checked: `%255C` is `%5C` is `\`. */
const DECODE_ROUNDS = 3;

function looksLocal(v: string): boolean {
  return v.startsWith("/") && !v.startsWith("//") && !v.includes("\\") && !CONTROL.test(v);
}

/** `value` as a same-origin path (path, query and fragment), or `fallback` when it is anything else. */
export function safeNextPath(value: unknown): string;
export function safeNextPath<T extends string | null>(value: unknown, fallback: T): string | T;
export function safeNextPath(value: unknown, fallback: string | null = "/"): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_LENGTH) return fallback;
  let form = value;
  for (let round = 0; ; round++) {
    if (!looksLocal(form)) return fallback;
    let decoded: string;
    try {
      decoded = decodeURIComponent(form);
    } catch {
      return fallback;
    }
    if (decoded === form) break;
    if (round === DECODE_ROUNDS) return fallback;
    form = decoded;
  }
  const origin = new URL(config().APP_URL).origin;
  let url: URL;
  try {
    url = new URL(value, `${origin}/`);
  } catch {
    return fallback;
  }
  if (url.origin !== origin) return fallback;
  return url.pathname + url.search + url.hash;
}
