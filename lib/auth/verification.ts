import { createHmac, timingSafeEqual } from "node:crypto";
import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import { sendMail } from "../mail/index.ts";
import { takeAttempt } from "./throttle-sql.ts";
import { dropUnverifiedIdentities } from "./identities.ts";
import { log } from "../log/index.ts";

// Email verification. An account is verified when its owner showed they read mail sent to its
// address: the link of the verification mail (sent at sign-up, and again on request), which only
// the mailbox ever sees, or an account made by the operator with the admin CLI. An invitation does
// not count: its link is shown to the inviter as well. Only verified accounts can be added to a workspace directly, and only a verified
// account is linked to a GitHub/Google sign-in with the same address (lib/auth/oauth.ts).
//
// The link's token is not stored: it is the user id, an expiry and an HMAC (keyed with
// AUTH_SECRET) over those and the address, so it stops working when the address changes.

export const VERIFY_LINK_DAYS = 3;
/** Resends of the mail per account and hour. */
export const RESEND_LIMIT = { limit: 5, windowSeconds: 60 * 60 };

function mac(userId: number, email: string, expires: number): Buffer {
  const secret = process.env.AUTH_SECRET;
  if (!secret) throw new Error("AUTH_SECRET is not set: start through server.ts or set it");
  return createHmac("sha256", `linkhop-verify-email\n${secret}`).update(`${userId}\n${email}\n${expires}`).digest();
}

export function verificationToken(userId: number, email: string, now = Date.now()): string {
  const expires = Math.floor(now / 1000) + VERIFY_LINK_DAYS * 86_400;
  return `${userId}.${expires}.${mac(userId, email, expires).toString("base64url")}`;
}

/** `next`: a path of the app the confirmation page offers to continue to (an invitation, say). */
export function verificationUrl(token: string, next?: string): string {
  const url = `${config().APP_URL}/account/verify/${token}`;
  return next ? `${url}?next=${encodeURIComponent(next)}` : url;
}

/** hasPassword: false for an account made through GitHub/Google/OIDC, which can then set one ("Forgot password?"). */
export type VerifyOutcome =
  | { state: "verified"; email: string; hasPassword: boolean }
  | { state: "already_verified"; email: string; hasPassword: boolean }
  | { state: "expired" | "invalid" };

/** Checks a verification link's token and marks the account verified. */
export async function verifyEmail(token: string): Promise<VerifyOutcome> {
  const m = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(typeof token === "string" ? token : "");
  if (!m) return { state: "invalid" };
  const [userId, expires] = [Number(m[1]), Number(m[2])];
  if (userId > 2_147_483_647) return { state: "invalid" };
  const user = await db().user.findUnique({ where: { id: userId }, select: { email: true, emailVerifiedAt: true, passwordHash: true } });
  const given = Buffer.from(m[3], "base64url");
  const expected = mac(userId, user?.email ?? "", expires);
  if (!user || given.length !== expected.length || !timingSafeEqual(given, expected)) return { state: "invalid" };
  if (user.emailVerifiedAt) return { state: "already_verified", email: user.email, hasPassword: user.passwordHash !== null };
  if (expires * 1000 < Date.now()) return { state: "expired" };
  await db().$transaction(async (tx) => {
    const { count } = await tx.user.updateMany({ where: { id: userId, emailVerifiedAt: null }, data: { emailVerifiedAt: new Date() } });
    // The mailbox proved the address: an identity linked before it did is nobody's proof.
    if (count > 0) await dropUnverifiedIdentities(tx, userId);
  });
  return { state: "verified", email: user.email, hasPassword: user.passwordHash !== null };
}

/**
 * Mails the verification link (to the server log without SMTP_URL). A failed mail is logged, not
 * thrown: the account stands, and the app offers to send it again.
 */
export async function sendVerificationMail(userId: number, next?: string): Promise<{ mailed: boolean }> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { email: true, emailVerifiedAt: true } });
  if (!user || user.emailVerifiedAt) return { mailed: false };
  const url = verificationUrl(verificationToken(userId, user.email), next);
  try {
    await sendMail({
      to: user.email,
      subject: "Confirm your email address for Linkhop",
      text:
        `Confirm that ${user.email} is your address by opening this link:\n${url}\n\n` +
        `The link works for ${VERIFY_LINK_DAYS} days. If you did not create a Linkhop account, ignore this email.\n`,
      html:
        `<p>Confirm that <strong>${escapeHtml(user.email)}</strong> is your address:</p>` +
        `<p><a href="${escapeHtml(url)}">Confirm my email address</a></p>` +
        `<p style="color:#64748b">The link works for ${VERIFY_LINK_DAYS} days. If you did not create a Linkhop account, ignore this email.</p>`,
    });
    return { mailed: true };
  } catch (e) {
    log("auth").error({ to: user.email, err: e }, "verification mail failed");
    return { mailed: false };
  }
}

/** "Resend" in the app: at most RESEND_LIMIT mails per account and hour. */
export async function resendVerificationMail(userId: number, next?: string): Promise<{ mailed: boolean; alreadyVerified: boolean }> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { emailVerifiedAt: true } });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (user.emailVerifiedAt) return { mailed: false, alreadyVerified: true };
  const wait = await takeAttempt(`verify-mail:${userId}`, RESEND_LIMIT.limit, RESEND_LIMIT.windowSeconds);
  if (wait !== null)
    throw new ServiceError("rate_limit", `Too many mails sent. Try again in ${Math.max(1, Math.ceil(wait / 60))} minutes.`);
  const { mailed } = await sendVerificationMail(userId, next);
  if (!mailed) throw new ServiceError("conflict", "The mail could not be sent. Try again later.");
  return { mailed, alreadyVerified: false };
}

/** The address to show in the app's "verify your email" notice, or null once it is verified. */
export async function unverifiedEmailOf(userId: number): Promise<string | null> {
  const u = await db().user.findUnique({ where: { id: userId }, select: { email: true, emailVerifiedAt: true } });
  return u && !u.emailVerifiedAt ? u.email : null;
}

export function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
