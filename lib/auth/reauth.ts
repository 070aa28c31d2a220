import { now } from "../clock.ts";
import { db } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import { verifyPassword } from "./password.ts";
import { signInSucceeded, takeSignInAttempt, tooManyAttemptsMessage } from "./throttle.ts";

// Proving again that the person at the keyboard owns the account, before a change that hands the
// account over or destroys it (a new email address, deleting the account). A session alone is not
// enough: a browser left signed in, or a stolen cookie, must not be able to do either.
// - An account with a password: the current password. The check counts against the sign-in
//   limits like a sign-in from the same client address, so it is no way around them.
// - An account without one (GitHub/Google only): a recent sign-in. The session cookie records the
//   instant of the sign-in that issued it (token.at, lib/auth/index.ts; refreshing the cookie
//   keeps it), and the change is allowed within RECENT_SIGN_IN_MINUTES of it. Sessions issued
//   before that instant was recorded count as old.

export const RECENT_SIGN_IN_MINUTES = 10;

export type Reauth = {
  /** What the form sent in its password field ("" when there is none). */
  password: string;
  /** When the current session's sign-in happened (ms), or null when unknown. */
  signedInAt: number | null;
  /** The client's address, for the sign-in limits. */
  address?: string;
};

export const RECENT_SIGN_IN_MESSAGE = `For your safety, sign out and sign in again, then do this within ${RECENT_SIGN_IN_MINUTES} minutes.`;

/** Whether a sign-in at `signedInAt` is recent enough at `at`. */
export function signedInRecently(signedInAt: number | null, at: Date = now()): boolean {
  if (signedInAt === null || !Number.isFinite(signedInAt)) return false;
  const age = at.getTime() - signedInAt;
  return age >= -60_000 && age <= RECENT_SIGN_IN_MINUTES * 60_000;
}

/**
 * Refuses unless the user proved it again (see above). `field` is the form field a wrong password
 * is reported on. Returns the account's email and session version as read.
 */
export async function confirmIdentity(
  userId: number,
  proof: Reauth,
  field = "password",
): Promise<{ email: string; sessionVersion: number }> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { email: true, passwordHash: true, sessionVersion: true } });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (!user.passwordHash) {
    if (!signedInRecently(proof.signedInAt)) throw ServiceError.forbidden(RECENT_SIGN_IN_MESSAGE);
    return { email: user.email, sessionVersion: user.sessionVersion };
  }
  if (!proof.password) throw ServiceError.validation([{ path: field, message: "Enter your current password." }]);
  const gate = await takeSignInAttempt(user.email, proof.address);
  if (!gate.ok) throw new ServiceError("rate_limit", tooManyAttemptsMessage(gate.retryAfterSeconds));
  if (!(await verifyPassword(proof.password.slice(0, 1024), user.passwordHash)))
    throw ServiceError.validation([{ path: field, message: "The current password is wrong." }]);
  await signInSucceeded(gate);
  return { email: user.email, sessionVersion: user.sessionVersion };
}
