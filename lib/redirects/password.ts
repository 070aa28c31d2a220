import { createHash } from "node:crypto";
import { verifyPassword } from "../auth/password.ts";
import { consumePasswordGuess, refundPasswordGuess, type Queryable } from "./sql.ts";

// Password-protected links. A visitor (IP address) has GUESS_LIMIT wrong guesses per link in a
// window of GUESS_WINDOW_SECONDS starting at the first guess; more answer 429 until the window
// ends. A guess is taken BEFORE the (deliberately slow) scrypt check and given back when it was
// right, so parallel guesses cannot get more checks than the limit.

export const GUESS_LIMIT = 10;
export const GUESS_WINDOW_SECONDS = 15 * 60;
/** The form sends one short field; anything bigger is refused unread. */
export const MAX_FORM_BYTES = 4096;

/**
 * The visitor's address: the peer's, or behind one trusted reverse proxy (TRUST_PROXY=1) the last
 * X-Forwarded-For entry, which that proxy appended (earlier entries are the client's to forge).
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trustProxy: boolean): string | undefined {
  if (!trustProxy || !forwardedFor) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const last = header.split(",").map((s) => s.trim()).filter(Boolean).pop();
  return last ?? peer;
}

/** Visitors are stored as a hash of their address, never the address itself. */
export function visitorKey(address: string | undefined): string {
  return createHash("sha256").update(`linkhop-guess:${address ?? "unknown"}`).digest("hex").slice(0, 32);
}

export type PasswordOutcome = "right" | "wrong" | "too_many";

export async function checkLinkPassword(
  q: Queryable,
  link: { id: number; passwordHash: string },
  password: string,
  visitor: string,
): Promise<PasswordOutcome> {
  const guesses = await consumePasswordGuess(q, link.id, visitor, GUESS_WINDOW_SECONDS);
  if (guesses > GUESS_LIMIT) return "too_many";
  const right = password.length > 0 && password.length <= 1024 && (await verifyPassword(password, link.passwordHash));
  if (!right) return "wrong";
  await refundPasswordGuess(q, link.id, visitor);
  return "right";
}

/** The `password` field of an application/x-www-form-urlencoded body. */
export function passwordFromForm(body: string): string {
  return new URLSearchParams(body).get("password") ?? "";
}
