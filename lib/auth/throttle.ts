import { createHash } from "node:crypto";
import { config } from "../config/index.ts";
import { guessGroup } from "../http/client-address.ts";
import { forgetAttempts, giveBackAttempt, pruneAttempts, takeAttempt } from "./throttle-sql.ts";

// Limits on guessing passwords and on mass sign-up, kept in PostgreSQL so they hold across app
// processes (README, Security). Failed sign-ins are limited per account and client address, and
// more widely per account; sign-ups per client address. The account limits apply to any email,
// whether or not an account has it, so the answer says nothing about which accounts exist.
//
// An attempt is taken before the (deliberately slow) password check and given back when the
// password was right, so only failures count and parallel guesses get no more checks than the limit.

export const SIGN_IN_LIMIT_PER_ACCOUNT_AND_ADDRESS = { limit: 10, windowSeconds: 15 * 60 };
export const SIGN_IN_LIMIT_PER_ACCOUNT = { limit: 50, windowSeconds: 60 * 60 };
/** The limit is SIGNUP_LIMIT_PER_HOUR (default 30): a test suite signing up many accounts from one address raises it. */
export const SIGN_UP_WINDOW_SECONDS = 60 * 60;
// The invitation mails per address count over a day (lib/members/invitations.ts): the longest window.
const LONGEST_WINDOW_SECONDS = 24 * 60 * 60;

const hash = (label: string, ...parts: string[]) =>
  `${label}:${createHash("sha256")
    .update(`linkhop-throttle\n${label}\n${parts.join("\n")}`)
    .digest("hex")
    .slice(0, 40)}`;

// Addresses are grouped as for password-protected links: an IPv6 /64 counts as one client (one
// host usually holds a whole /64), IPv4 and IPv4-mapped addresses count alone.
function signInKeys(email: string, address: string | undefined) {
  const account = email.trim().toLowerCase();
  return { pair: hash("signin-pair", account, guessGroup(address)), account: hash("signin-account", account) };
}

export type Gate = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Takes a sign-in attempt for `email` from `address`; call signInSucceeded when the password was right. */
export async function takeSignInAttempt(email: string, address: string | undefined): Promise<Gate> {
  const keys = signInKeys(email, address);
  const pairWait = await takeAttempt(
    keys.pair,
    SIGN_IN_LIMIT_PER_ACCOUNT_AND_ADDRESS.limit,
    SIGN_IN_LIMIT_PER_ACCOUNT_AND_ADDRESS.windowSeconds,
  );
  if (pairWait !== null) return { ok: false, retryAfterSeconds: pairWait };
  // Refused attempts are not counted per account: one locked-out address cannot lock everyone out.
  const accountWait = await takeAttempt(keys.account, SIGN_IN_LIMIT_PER_ACCOUNT.limit, SIGN_IN_LIMIT_PER_ACCOUNT.windowSeconds);
  if (accountWait === null) return { ok: true };
  await giveBackAttempt(keys.pair);
  return { ok: false, retryAfterSeconds: accountWait };
}

/** The password was right: the attempt taken for it is given back. */
export async function signInSucceeded(email: string, address: string | undefined): Promise<void> {
  const keys = signInKeys(email, address);
  await giveBackAttempt(keys.pair);
  await giveBackAttempt(keys.account);
}

/**
 * The password was set again through a link mailed to the account (lib/auth/password-reset.ts):
 * the failures counted against the account, and from this client, are forgotten, so whoever
 * forgot the password (and guessed first) can sign in with the new one at once.
 */
export async function clearSignInLimits(email: string, address: string | undefined): Promise<void> {
  const keys = signInKeys(email, address);
  await forgetAttempts([keys.pair, keys.account]);
}

/** A key of the AuthThrottle table for other limits (lib/auth/password-reset.ts): hashed, so it holds no email or address. */
export function throttleKey(label: string, ...parts: string[]): string {
  return hash(label, ...parts);
}

/** Takes a sign-up attempt from `address` (every attempt counts, accepted or not). */
export async function takeSignUpAttempt(address: string | undefined): Promise<Gate> {
  const wait = await takeAttempt(hash("signup", guessGroup(address)), config().SIGNUP_LIMIT_PER_HOUR, SIGN_UP_WINDOW_SECONDS);
  return wait === null ? { ok: true } : { ok: false, retryAfterSeconds: wait };
}

export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}

/** Drops ended windows (run from the background jobs). */
export function pruneAuthThrottle(): Promise<number> {
  // The table also holds the app's link-creating budget (lib/links/app-budget.ts), whose window is
  // RATE_LIMIT_WINDOW_SECONDS: a window still running is never dropped.
  return pruneAttempts(Math.max(LONGEST_WINDOW_SECONDS, config().RATE_LIMIT_WINDOW_SECONDS));
}
