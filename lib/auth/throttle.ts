import { createHash } from "node:crypto";
import { config } from "../config/index.ts";
import { guessGroup } from "../http/client-address.ts";
import { forgetAttempts, giveBackAttempt, pruneAttempts, takeAttempt } from "./throttle-sql.ts";

// Limits on guessing passwords and on mass sign-up, kept in PostgreSQL so they hold across app
// processes (docs/operations.md, Security). Failed sign-ins are limited per client address across every
// account (so made-up addresses cannot buy unlimited slow password hashes), per account and client
// address, and more widely per account; sign-ups per client address. The account limits apply to
// any email, whether or not an account has it, so the answer says nothing about which accounts exist.
//
// An attempt is taken before the (deliberately slow) password check and given back when the
// password was right, so only failures count and parallel guesses get no more checks than the limit.
//
// The account-wide limit is what lets a stranger lock an account (10 failures from each of 5
// addresses). It is kept, but it does not stop the owner where a password alone is not the whole
// proof: a client that signed in to the account before (lib/auth/known-client.ts) skips it; for an
// account with a second factor the caller is told the account is locked and goes on to the code
// step whether the password was right or not (lib/auth/index.ts), so the lock reveals nothing and
// the code step (with an account limit of its own, which wrong passwords never fill) decides.

/** The limit is SIGNIN_FAILURES_PER_CLIENT (default 50): an office behind one address may raise it. */
export const SIGN_IN_CLIENT_WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_LIMIT_PER_ACCOUNT_AND_ADDRESS = { limit: 10, windowSeconds: 15 * 60 };
export const SIGN_IN_LIMIT_PER_ACCOUNT = { limit: 50, windowSeconds: 60 * 60 };
/** Wrong second-factor codes per account (the code step, and turning the factor off). */
export const CODE_LIMIT_PER_ACCOUNT = { limit: 50, windowSeconds: 60 * 60 };
/** The limit is SIGNUP_LIMIT_PER_HOUR (default 30): a test suite signing up many accounts from one address raises it. */
export const SIGN_UP_WINDOW_SECONDS = 60 * 60;
// The invitation mails per address count over a day (lib/members/invitations.ts): the longest window.
const LONGEST_WINDOW_SECONDS = 24 * 60 * 60;

const hash = (label: string, ...parts: string[]) =>
  `${label}:${createHash("sha256")
    .update(`linkhop-throttle\n${label}\n${parts.join("\n")}`)
    .digest("hex")
    .slice(0, 40)}`;

type Limit = { key: string; limit: number; windowSeconds: number };

/** What a sign-in step checks: a password, or a second-factor code. */
export type SignInStep = "password" | "code";

// Addresses are grouped as for password-protected links: an IPv6 /64 counts as one client (one
// host usually holds a whole /64), IPv4 and IPv4-mapped addresses count alone. In the order taken:
// the client first, so an address over its limit costs one statement and no password hash.
function signInLimits(email: string, address: string | undefined, step: SignInStep): Limit[] {
  const account = email.trim().toLowerCase();
  const client = guessGroup(address);
  return [
    { key: hash("signin-client", client), limit: config().SIGNIN_FAILURES_PER_CLIENT, windowSeconds: SIGN_IN_CLIENT_WINDOW_SECONDS },
    { key: hash("signin-pair", account, client), ...SIGN_IN_LIMIT_PER_ACCOUNT_AND_ADDRESS },
    step === "code"
      ? { key: hash("signin-code-account", account), ...CODE_LIMIT_PER_ACCOUNT }
      : { key: hash("signin-account", account), ...SIGN_IN_LIMIT_PER_ACCOUNT },
  ];
}

export type Gate = { ok: true } | { ok: false; retryAfterSeconds: number };
/**
 * A sign-in attempt taken: hand it to signInSucceeded when the password (or code) was right.
 * accountLocked: the account-wide limit is reached, and the caller asked to be told ("report").
 */
export type SignInAttempt = { ok: true; keys: string[]; accountLocked: boolean } | { ok: false; retryAfterSeconds: number };

/**
 * Takes a sign-in attempt for `email` from `address`. The account-wide limit of the password step
 * `accountLimit`: "applies" (refused when reached), "skip" (a known client) or "report" (not
 * refused, but the answer says accountLocked: an account with a second factor).
 */
export async function takeSignInAttempt(
  email: string,
  address: string | undefined,
  opts: { step?: SignInStep; accountLimit?: "applies" | "skip" | "report" } = {},
): Promise<SignInAttempt> {
  const step = opts.step ?? "password";
  const accountLimit = step === "code" ? "applies" : (opts.accountLimit ?? "applies");
  const [client, pair, account] = signInLimits(email, address, step);
  const taken: string[] = [];
  for (const limit of accountLimit === "skip" ? [client!, pair!] : [client!, pair!, account!]) {
    const wait = await takeAttempt(limit.key, limit.limit, limit.windowSeconds);
    if (wait === null) {
      taken.push(limit.key);
      continue;
    }
    if (limit === account && accountLimit === "report") return { ok: true, keys: taken, accountLocked: true };
    // Refused attempts are not counted by the other limits: one locked-out address cannot lock everyone out.
    for (const key of taken) await giveBackAttempt(key);
    return { ok: false, retryAfterSeconds: wait };
  }
  return { ok: true, keys: taken, accountLocked: false };
}

/** The password (or code) was right: the attempt taken for it is given back. */
export async function signInSucceeded(attempt: { keys: string[] }): Promise<void> {
  for (const key of attempt.keys) await giveBackAttempt(key);
}

/**
 * The password was set again through a link mailed to the account (lib/auth/password-reset.ts):
 * the failures counted against the account, and from this client, are forgotten, so whoever
 * forgot the password (and guessed first) can sign in with the new one at once.
 */
export async function clearSignInLimits(email: string, address: string | undefined): Promise<void> {
  const [, pair, account] = signInLimits(email, address, "password");
  await forgetAttempts([pair!.key, account!.key]);
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
