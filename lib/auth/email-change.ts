import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { now } from "../clock.ts";
import { config } from "../config/index.ts";
import { db, uniqueViolation } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { sendMail } from "../mail/index.ts";
import { emailSchema } from "./schemas.ts";
import { confirmIdentity, type Reauth } from "./reauth.ts";
import { takeAttempt } from "./throttle-sql.ts";
import { escapeHtml } from "./verification.ts";
import { log } from "../log/index.ts";

// Changing the account's email address. The request needs the current password (or a recent
// sign-in for accounts without one: lib/auth/reauth.ts) and mails a link to the NEW address;
// nothing changes until that link is used, so nobody can move an account to an address they
// cannot read. Using it makes the new address the account's, verified (the link came from that
// mailbox), and ends every session of the account (session version bump). The old address is told
// when the change is requested (so its owner learns of a stolen password in time) and when it is done.
//
// The link's token is not stored: user id, expiry, new address and an HMAC (keyed with
// AUTH_SECRET) over those and the account's state at request time: its current address, when that
// was verified, and its password hash. The change alters the address and its verification time,
// so a link works once, and every other pending link dies with it; a password change cancels
// pending links too.
//
// An address another account uses is refused at request time ("already used by another
// account", never whose). Sign-up already answers that question to anyone for an address, so this
// reveals nothing new, and it is asked behind a password and a per-account limit. The unique
// index on User.email is the final guard at confirm time.
//
// Linked GitHub/Google identities stay linked: they are identities, not addresses; whoever could
// sign in with them still can.

export const EMAIL_CHANGE_LINK_HOURS = 24;
/** Change requests (each mails a link) per account and hour. */
export const EMAIL_CHANGE_LIMIT = { limit: 5, windowSeconds: 60 * 60 };
export const EMAIL_TAKEN_MESSAGE = "That address is already used by another account.";

type TokenState = { userId: number; oldEmail: string; verifiedAt: Date | null; passwordHash: string | null };

function mac(state: TokenState, newEmail: string, expires: number): Buffer {
  const secret = process.env.AUTH_SECRET;
  if (!secret) throw new Error("AUTH_SECRET is not set: start through server.ts or set it");
  const verified = state.verifiedAt ? String(state.verifiedAt.getTime()) : "-";
  return createHmac("sha256", `linkhop-change-email\n${secret}`)
    .update([state.userId, state.oldEmail, verified, state.passwordHash ?? "-", newEmail, expires].join("\n"))
    .digest();
}

export function emailChangeToken(state: TokenState, newEmail: string, at: Date = now()): string {
  const expires = Math.floor(at.getTime() / 1000) + EMAIL_CHANGE_LINK_HOURS * 3600;
  const encoded = Buffer.from(newEmail, "utf8").toString("base64url");
  return `${state.userId}.${expires}.${encoded}.${mac(state, newEmail, expires).toString("base64url")}`;
}

export function emailChangeUrl(token: string): string {
  return `${config().APP_URL}/account/email/${token}`;
}

const requestSchema = z.object({ email: emailSchema, password: z.string().max(1024) });

/** Checks the request and mails the link to the new address; nothing about the account changes yet. */
export async function requestEmailChange(userId: number, input: unknown, proof: Omit<Reauth, "password">): Promise<{ email: string }> {
  const { email: newEmail, password } = parseInput(requestSchema, input);
  const user = await db().user.findUnique({
    where: { id: userId },
    select: { id: true, email: true, emailVerifiedAt: true, passwordHash: true },
  });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (newEmail === user.email) throw ServiceError.validation([{ path: "email", message: "That is already your address." }]);
  await confirmIdentity(userId, { ...proof, password }, "password");
  const wait = await takeAttempt(`email-change:${userId}`, EMAIL_CHANGE_LIMIT.limit, EMAIL_CHANGE_LIMIT.windowSeconds);
  if (wait !== null) throw new ServiceError("rate_limit", `Too many requests. Try again in ${Math.max(1, Math.ceil(wait / 60))} minutes.`);
  if (await db().user.findUnique({ where: { email: newEmail }, select: { id: true } }))
    throw ServiceError.validation([{ path: "email", message: EMAIL_TAKEN_MESSAGE }]);

  const state = { userId, oldEmail: user.email, verifiedAt: user.emailVerifiedAt, passwordHash: user.passwordHash };
  const url = emailChangeUrl(emailChangeToken(state, newEmail));
  try {
    await sendMail({
      to: newEmail,
      subject: "Confirm your new email address for Linkhop",
      text:
        `Someone, hopefully you, asked to use ${newEmail} as the address of a Linkhop account.\n` +
        `Open this link to confirm it:\n${url}\n\n` +
        `The link works once, for ${EMAIL_CHANGE_LINK_HOURS} hours. If you did not ask for this, ignore this email: nothing changes.\n`,
      html:
        `<p>Someone, hopefully you, asked to use <strong>${escapeHtml(newEmail)}</strong> as the address of a Linkhop account.</p>` +
        `<p><a href="${escapeHtml(url)}">Confirm my new email address</a></p>` +
        `<p style="color:#64748b">The link works once, for ${EMAIL_CHANGE_LINK_HOURS} hours. If you did not ask for this, ignore this email: nothing changes.</p>`,
    });
  } catch (e) {
    log("auth").error({ to: newEmail, err: e }, "email change mail failed");
    throw ServiceError.conflict("The mail could not be sent. Try again later.");
  }
  await notifyOldAddress(
    user.email,
    "A change of your Linkhop email address was requested",
    `Someone signed in to your Linkhop account asked to change its address from ${user.email} to ${newEmail}. ` +
      `Nothing changes until the link mailed to ${newEmail} is opened.\n\n` +
      `If this was not you, sign in and change your password now: that also cancels the request.\n`,
  );
  return { email: newEmail };
}

export type EmailChangeOutcome = { state: "changed"; email: string } | { state: "expired" | "invalid" | "taken" | "sign_in" };

type Parsed = { userId: number; expires: number; newEmail: string; given: Buffer };

function parseToken(token: unknown): Parsed | null {
  const m = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(typeof token === "string" ? token : "");
  if (!m) return null;
  const userId = Number(m[1]);
  if (userId < 1 || userId > 2_147_483_647) return null;
  const newEmail = Buffer.from(m[3], "base64url").toString("utf8");
  if (!emailSchema.safeParse(newEmail).success) return null;
  return { userId, expires: Number(m[2]), newEmail, given: Buffer.from(m[4], "base64url") };
}

/**
 * The new address a link would set, when the link is still good and `signedInUserId` is the
 * account that asked (for the confirmation page). The link proves the new mailbox only: whoever
 * reads it (a mistyped address's owner) must not be able to move someone else's account to it,
 * so confirming also needs that account's session ("sign_in" otherwise).
 */
export async function checkEmailChangeLink(
  token: unknown,
  signedInUserId: number | null,
): Promise<EmailChangeOutcome | { state: "valid"; email: string }> {
  const found = await validLink(token);
  if ("state" in found) return found;
  if (found.user.userId !== signedInUserId) return { state: "sign_in" };
  return { state: "valid", email: found.parsed.newEmail };
}

async function validLink(token: unknown): Promise<{ state: "expired" | "invalid" } | { parsed: Parsed; user: TokenState }> {
  const parsed = parseToken(token);
  if (!parsed) return { state: "invalid" };
  const u = await db().user.findUnique({
    where: { id: parsed.userId },
    select: { email: true, emailVerifiedAt: true, passwordHash: true },
  });
  if (!u) return { state: "invalid" };
  const user = { userId: parsed.userId, oldEmail: u.email, verifiedAt: u.emailVerifiedAt, passwordHash: u.passwordHash };
  const expected = mac(user, parsed.newEmail, parsed.expires);
  if (parsed.given.length !== expected.length || !timingSafeEqual(parsed.given, expected)) return { state: "invalid" };
  if (parsed.expires * 1000 < now().getTime()) return { state: "expired" };
  return { parsed, user };
}

/** Uses a link: the account's address becomes the new one, verified, and every session ends. */
export async function confirmEmailChange(token: unknown, signedInUserId: number | null): Promise<EmailChangeOutcome> {
  const found = await validLink(token);
  if ("state" in found) return found;
  const { parsed, user } = found;
  if (user.userId !== signedInUserId) return { state: "sign_in" };
  let count: number;
  try {
    // Conditional on the state the link was made for: two uses at once change it at most once.
    ({ count } = await db().user.updateMany({
      where: { id: user.userId, email: user.oldEmail, emailVerifiedAt: user.verifiedAt, passwordHash: user.passwordHash },
      data: { email: parsed.newEmail, emailVerifiedAt: now(), sessionVersion: { increment: 1 } },
    }));
  } catch (e) {
    if (uniqueViolation(e)) return { state: "taken" };
    throw e;
  }
  if (count === 0) return { state: "invalid" };
  await notifyOldAddress(
    user.oldEmail,
    "Your Linkhop email address was changed",
    `The address of your Linkhop account was changed from ${user.oldEmail} to ${parsed.newEmail}, ` +
      `confirmed from that mailbox. Every session of the account was signed out; sign in with the new address from now on.\n\n` +
      `If this was not you, reply to this email or contact the operator of this Linkhop service.\n`,
  );
  return { state: "changed", email: parsed.newEmail };
}

/** A notice to the address the account had; a failed mail is logged (the change stands). */
async function notifyOldAddress(to: string, subject: string, text: string) {
  try {
    await sendMail({
      to,
      subject,
      text,
      html: text
        .split("\n\n")
        .map((p) => `<p>${escapeHtml(p.trim())}</p>`)
        .join(""),
    });
  } catch (e) {
    log("auth").error({ to, err: e }, "email change notice failed");
  }
}
