import { config } from "../config/index.ts";

// Where to go after signing in (`?next=`), and every other redirect target taken from a request.
// Only a path on the app's own origin is accepted, else the fallback. The value is normalised
// first (the URL parser resolves dot segments, drops tabs and newlines, reads `\` as `/`), and the
// RESULT is checked: `/.//evil.example` normalises to `//evil.example`, which a browser reads as
// another site, so checking only the input is not enough. The input is checked too, percent-decoded
// up to three times: `/%2F/evil.example` or `/%5Cevil.example` must not pass through a later decode.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const MAX_LENGTH = 2048;
/** Percent-decoding rounds checked: `%255C` is `%5C` is `\`. */
const DECODE_ROUNDS = 3;

/** A path that starts with exactly one `/`, holds no backslash or control character. */
function looksLocal(v: string): boolean {
  return v.startsWith("/") && !v.startsWith("//") && !v.includes("\\") && !CONTROL.test(v);
}

/** `value` and its percent-decoded forms all look local. */
function localInEveryForm(value: string): boolean {
  let form = value;
  for (let round = 0; ; round++) {
    if (!looksLocal(form)) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(form);
    } catch {
      return false;
    }
    if (decoded === form) return true;
    if (round === DECODE_ROUNDS) return false;
    form = decoded;
  }
}

/** `value` as a same-origin path (path, query and fragment), or `fallback` when it is anything else. */
export function safeNextPath(value: unknown): string;
export function safeNextPath<T extends string | null>(value: unknown, fallback: T): string | T;
export function safeNextPath(value: unknown, fallback: string | null = "/"): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_LENGTH) return fallback;
  if (!localInEveryForm(value)) return fallback;
  const origin = new URL(config().APP_URL).origin;
  let url: URL;
  try {
    url = new URL(value, `${origin}/`);
  } catch {
    return fallback;
  }
  if (url.origin !== origin) return fallback;
  const normalised = url.pathname + url.search + url.hash;
  // Checked again after normalising: the answer is what the browser follows.
  if (normalised.length > MAX_LENGTH || !localInEveryForm(url.pathname)) return fallback;
  return normalised;
}
