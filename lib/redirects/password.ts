import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { verifyPassword } from "../auth/password.ts";
import { guessGroup } from "../http/client-address.ts";
import { consumePasswordGuesses, prunePasswordGuesses, refundPasswordGuess } from "./sql.ts";
import type { Queryable } from "../db/queryable.ts";
import { log } from "../log/index.ts";

// Password-protected links. Three limits, all counted in PostgreSQL in one atomic statement
// (lib/redirects/sql.ts consumePasswordGuesses), so they hold across processes:
// - a visitor (an IPv4 address, or an IPv6 /64: one subscriber usually holds a whole /64) has
//   GUESS_LIMIT wrong guesses per link in a window of GUESS_WINDOW_SECONDS from the first guess;
// - a link has LINK_GUESS_LIMIT wrong guesses from all visitors together per LINK_GUESS_WINDOW_SECONDS,
//   which slows guessing spread over many addresses (at most 600 guesses an hour) while a lock-out
//   of everyone lasts at most 5 minutes; a visitor over their own limit adds nothing to it;
// - the form is bound to a token (double-submit: a random value in a SameSite=Strict, HttpOnly
//   cookie set with the form, repeated in a hidden field). Posts that carry it and posts that do
//   not are counted apart: another site can make a visitor's browser post guesses, but never with
//   the token (it can neither read the cookie nor get the browser to send it), so it only uses up
//   the token-less allowance of that address, and the visitor's own form keeps all its guesses.
//   Posts without the token (scripts posting `password` as documented) still work, with their own
//   allowance of GUESS_LIMIT; the link's limit counts both.
// A guess is taken BEFORE the (deliberately slow) scrypt check and given back when it was right,
// so parallel guesses cannot get more checks than the limits.

export const GUESS_LIMIT = 10;
export const GUESS_WINDOW_SECONDS = 15 * 60;
export const LINK_GUESS_LIMIT = 50;
export const LINK_GUESS_WINDOW_SECONDS = 5 * 60;
/** The form sends two short fields; anything bigger is refused unread. */
export const MAX_FORM_BYTES = 4096;

export const FORM_COOKIE = "lh_pw";
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{22}$/;

/**
 * Visitors are stored as a hash of their address group, never the address itself; posts with the
 * form's token (viaForm) and without it are counted as two visitors.
 */
export function visitorKey(address: string | undefined, viaForm = false): string {
  return createHash("sha256")
    .update(`linkhop-guess:${viaForm ? "form:" : ""}${guessGroup(address)}`)
    .digest("hex")
    .slice(0, 32);
}

function cookieValue(cookieHeader: string | undefined, name: string): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The form token for a visitor: the one their cookie already holds, or a new one (then set the cookie). */
export function formToken(cookieHeader: string | undefined): { token: string; setCookie: boolean } {
  const existing = cookieValue(cookieHeader, FORM_COOKIE);
  if (existing && TOKEN_SHAPE.test(existing)) return { token: existing, setCookie: false };
  return { token: randomBytes(16).toString("base64url"), setCookie: true };
}

/** Set-Cookie for the token: this host only, never sent by another site's requests. */
export function formTokenCookie(token: string, secure: boolean): string {
  return `${FORM_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=86400${secure ? "; Secure" : ""}`;
}

/** True when the form's token is the one in the visitor's cookie. */
export function formTokenAccepted(cookieHeader: string | undefined, sent: string): boolean {
  const expected = cookieValue(cookieHeader, FORM_COOKIE);
  if (!expected || !TOKEN_SHAPE.test(expected) || !TOKEN_SHAPE.test(sent)) return false;
  return timingSafeEqual(Buffer.from(expected), Buffer.from(sent));
}

/** right, wrong, too_many (this visitor), link_busy (the link's limit across all visitors). */
export type PasswordOutcome = "right" | "wrong" | "too_many" | "link_busy";

export async function checkLinkPassword(
  q: Queryable,
  link: { id: number; passwordHash: string },
  password: string,
  visitor: string,
): Promise<PasswordOutcome> {
  const guesses = await consumePasswordGuesses(q, link.id, visitor, {
    visitorLimit: GUESS_LIMIT,
    visitorWindowSeconds: GUESS_WINDOW_SECONDS,
    linkWindowSeconds: LINK_GUESS_WINDOW_SECONDS,
  });
  if (guesses.visitor > GUESS_LIMIT) return "too_many";
  if (guesses.link !== null && guesses.link > LINK_GUESS_LIMIT) {
    await refundPasswordGuess(q, link.id, visitor); // nothing was checked: the visitor keeps their allowance
    return "link_busy";
  }
  const right = password.length > 0 && password.length <= 1024 && (await verifyPassword(password, link.passwordHash));
  if (!right) return "wrong";
  await refundPasswordGuess(q, link.id, visitor);
  return "right";
}

/** The form's fields (application/x-www-form-urlencoded). */
export function passwordFromForm(body: string): string {
  return new URLSearchParams(body).get("password") ?? "";
}

export function tokenFromForm(body: string): string {
  return new URLSearchParams(body).get("token") ?? "";
}

/** Forgets ended guess windows every 10 minutes (the short-link handler, while it serves); returns the stop. */
export function startGuessPruning(q: Queryable): () => void {
  const timer = setInterval(() => {
    prunePasswordGuesses(q, GUESS_WINDOW_SECONDS).catch((e) => log("redirects").error({ err: e }, "pruning password guesses failed"));
  }, 10 * 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
