import { createHash, randomBytes } from "node:crypto";
import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { assertSignUpAllowed } from "../instance/signup.ts";
import { sendMail } from "../mail/index.ts";
import { signUpSchema } from "./schemas.ts";
import { signUpWithHash } from "./users.ts";
import { hashPassword, verifyPassword } from "./password.ts";
import { throttleKey, tooManyAttemptsMessage } from "./throttle.ts";
import { takeAttempt } from "./throttle-sql.ts";
import { log } from "../log/index.ts";

// Sign-up on an invite-only instance: the account exists only once its mailbox confirmed it.
// Whoever holds an invitation link (the inviter sees it too) could otherwise make an account for
// an address they do not read, revoke the invitation and keep the account.
//
// - Signing up (the form or the invitation page) stores the address, name, password hash and a
//   random 256-bit token's SHA-256, and mails the link APP_URL/signup/confirm/<token> (24 hours).
//   Several may wait for one address: one person's sign-up cannot cancel another's.
// - Opening the link changes nothing (mail scanners open links). Its form asks for the password
//   chosen at sign-up: a sign-up started by someone else (the inviter, with a password of their
//   own) cannot be finished by the mailbox's owner clicking through, so nobody ends up with an
//   account whose password another person chose. Wrong passwords are limited per link.
// - Finishing uses the link once and makes the account through signUpWithHash (users.ts),
//   verified, if the address still has a pending invitation (a revoked one makes nothing); the
//   other waiting sign-ups for the address are dropped.

export const PENDING_SIGNUP_HOURS = 24;
/** Sign-up mails per address and hour (the sign-up limit per client applies first). */
export const PENDING_SIGNUP_MAILS_PER_ADDRESS = { limit: 5, windowSeconds: 60 * 60 };
/** Password tries per link. */
export const PENDING_SIGNUP_TRIES_PER_LINK = { limit: 10, windowSeconds: 15 * 60 };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Where the app sends the browser after such a sign-up: a page that says to open the mail. */
export const CHECK_MAIL_PATH = "/signup/check-mail";

export function pendingSignUpUrl(token: string): string {
  return `${config().APP_URL}/signup/confirm/${token}`;
}

/**
 * Starts a sign-up that waits for its mailbox: refused like a sign-up (mode, invitation, an
 * existing account) before anything is stored or mailed. `next`: where the app leads on to.
 */
export async function startPendingSignUp(input: unknown, next?: string): Promise<{ email: string }> {
  const { email, password, name } = parseInput(signUpSchema, input);
  await db().$transaction((tx) => assertSignUpAllowed(tx, email, { mailboxConfirmed: true }));
  if (await db().user.findUnique({ where: { email }, select: { id: true } })) {
    throw ServiceError.conflict("An account with this email already exists. Sign in instead.");
  }
  const { limit, windowSeconds } = PENDING_SIGNUP_MAILS_PER_ADDRESS;
  const wait = await takeAttempt(throttleKey("pending-signup-mail", email), limit, windowSeconds);
  if (wait !== null) throw new ServiceError("rate_limit", tooManyAttemptsMessage(wait));

  const token = randomBytes(32).toString("base64url");
  const row = await db().pendingSignUp.create({
    data: {
      email,
      name: name || null,
      passwordHash: await hashPassword(password),
      tokenHash: hashToken(token),
      next: next ?? null,
      expiresAt: new Date(Date.now() + PENDING_SIGNUP_HOURS * 3_600_000),
    },
  });
  try {
    await sendPendingSignUpMail(email, pendingSignUpUrl(token));
  } catch (e) {
    // without the mail the sign-up can never finish: nothing is kept
    log("auth").error({ to: email, err: e }, "sign-up mail failed");
    await db().pendingSignUp.delete({ where: { id: row.id } });
    throw new ServiceError("conflict", "The mail could not be sent. Try again later.");
  }
  return { email };
}

export type PendingSignUpState = { state: "valid"; email: string } | { state: "invalid" | "expired" };

/** What a link is now (its page shows the form or says why not). Reading it changes nothing. */
export async function pendingSignUpState(token: unknown): Promise<PendingSignUpState> {
  if (typeof token !== "string" || !TOKEN.test(token)) return { state: "invalid" };
  const row = await db().pendingSignUp.findUnique({ where: { tokenHash: hashToken(token) }, select: { email: true, expiresAt: true } });
  if (!row) return { state: "invalid" };
  if (row.expiresAt <= new Date()) return { state: "expired" };
  return { state: "valid", email: row.email };
}

export const PENDING_SIGNUP_MESSAGES: Record<Exclude<PendingSignUpState["state"], "valid">, { title: string; text: string }> = {
  invalid: {
    title: "This link is not valid",
    text: "It was used already, or it is not the whole link from the email. Sign in, or sign up again.",
  },
  expired: { title: "This link has expired", text: `Links work for ${PENDING_SIGNUP_HOURS} hours. Sign up again.` },
};

export const WRONG_PASSWORD_MESSAGE =
  "That is not the password chosen at sign-up. If you did not start this sign-up, sign up again yourself (from your invitation).";

/**
 * Finishes the sign-up of the link's token with the password chosen at sign-up: the account (and
 * its own workspace), verified. Throws a ServiceError: `forbidden` for a link that does not work,
 * a wrong password or an address no longer invited; `conflict` when the address has an account.
 */
export async function finishPendingSignUp(
  token: unknown,
  password: unknown,
): Promise<{ email: string; next: string | null; slug: string }> {
  const link = await pendingSignUpState(token);
  if (link.state !== "valid") {
    const { title, text } = PENDING_SIGNUP_MESSAGES[link.state];
    throw ServiceError.forbidden(`${title}. ${text}`);
  }
  const tokenHash = hashToken(token as string);
  const { limit, windowSeconds } = PENDING_SIGNUP_TRIES_PER_LINK;
  const wait = await takeAttempt(throttleKey("pending-signup-try", tokenHash), limit, windowSeconds);
  if (wait !== null) throw new ServiceError("rate_limit", tooManyAttemptsMessage(wait));
  const row = await db().pendingSignUp.findUnique({ where: { tokenHash } });
  if (!row || typeof password !== "string" || !(await verifyPassword(password, row.passwordHash))) {
    throw ServiceError.forbidden(WRONG_PASSWORD_MESSAGE);
  }
  // Used once: of two uses at once, one deletes the row and goes on.
  const claimed = await db().pendingSignUp.deleteMany({ where: { id: row.id, expiresAt: { gt: new Date() } } });
  if (claimed.count === 0)
    throw ServiceError.forbidden(`${PENDING_SIGNUP_MESSAGES.invalid.title}. ${PENDING_SIGNUP_MESSAGES.invalid.text}`);
  const made = await signUpWithHash({ email: row.email, name: row.name, passwordHash: row.passwordHash }, { mailboxConfirmed: true });
  await db().pendingSignUp.deleteMany({ where: { email: row.email } });
  return { email: row.email, next: row.next, slug: made.workspace.slug };
}

/** Drops sign-ups that ended more than a day ago (run from the background jobs). */
export async function prunePendingSignUps(): Promise<number> {
  const r = await db().pendingSignUp.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - 86_400_000) } } });
  return r.count;
}

async function sendPendingSignUpMail(email: string, url: string): Promise<void> {
  const ignore = "If you did not ask for this, ignore this email: no account is made.";
  await sendMail({
    to: email,
    subject: "Finish creating your Linkhop account",
    text:
      `Someone asked to create a Linkhop account for ${email}.\n\n` +
      `To finish, open this link and enter the password chosen at sign-up:\n${url}\n\n` +
      `The link works once, within ${PENDING_SIGNUP_HOURS} hours. ${ignore}\n`,
    html:
      `<p>Someone asked to create a Linkhop account for <strong>${escapeHtml(email)}</strong>.</p>` +
      `<p>To finish, open this link and enter the password chosen at sign-up: <a href="${escapeHtml(url)}">Finish creating my account</a></p>` +
      `<p style="color:#64748b">The link works once, within ${PENDING_SIGNUP_HOURS} hours. ${ignore}</p>`,
  });
}

function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
