import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { now } from "../clock.ts";
import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { sendMail } from "../mail/index.ts";
import { inBackground } from "../background.ts";
import { guessGroup } from "../http/client-address.ts";
import { emailSchema, passwordSchema } from "./schemas.ts";
import { hashPassword } from "./password.ts";
import { dropUnverifiedIdentities } from "./identities.ts";
import { clearSignInLimits, throttleKey, tooManyAttemptsMessage } from "./throttle.ts";
import { takeAttempt } from "./throttle-sql.ts";
import { log } from "../log/index.ts";

// "Forgot password?": a link mailed to the account's address sets a new password. Only the
// mailbox sees the link, so using it also proves the address (it is marked verified).
//
// - Asking for a link answers the same whatever accounts exist, after the same work: the same
//   limits, one random token and one SQL statement (which finds the account, deletes its unused
//   links and stores the new one, or does nothing); the mail is sent after the answer, in the
//   background. Accounts without a password (GitHub/Google only) get a link too and may set one.
// - A link is a random 256-bit token; only its SHA-256 is stored. It works once, for an hour
//   (the app's clock, lib/clock.ts), and only while the account still has the address it was
//   mailed to. Asking again deletes the account's unused links; using one deletes the others.
// - Using it sets the password, verifies the address, ends every session (session version + 1),
//   forgets the sign-in failures counted against the account, and removes GitHub/Google
//   identities linked while the address was unverified (nobody had proved the mailbox then:
//   they may be whoever registered the address first). The browser then signs in on the login
//   page, like any sign-in (limits and any later second factor apply).
// - The operator (admin CLI `user:reset-link`) gets the same kind of link printed instead of
//   mailed, for installs without mail; the operator vouches for the address, as with user:create.

export const RESET_LINK_MINUTES = 60;
/** Link requests per email address (the mailbox gets at most this many mails an hour), whether or not an account has it. */
export const RESET_REQUEST_LIMIT_PER_ADDRESS = { limit: 5, windowSeconds: 60 * 60 };
/** Link requests per client address (an IPv6 /64 counts as one), whatever addresses it asks for. */
export const RESET_REQUEST_LIMIT_PER_CLIENT = { limit: 20, windowSeconds: 60 * 60 };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function hashResetToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function resetUrl(token: string): string {
  return `${config().APP_URL}/reset-password/${token}`;
}

const requestSchema = z.object({ email: emailSchema });

/** Takes one request from `address` for `email`; the client limit first, so a refused client spends nothing of the address's. */
async function takeRequestAttempt(email: string, address: string | undefined): Promise<void> {
  const client = await takeAttempt(
    throttleKey("reset-client", guessGroup(address)),
    RESET_REQUEST_LIMIT_PER_CLIENT.limit,
    RESET_REQUEST_LIMIT_PER_CLIENT.windowSeconds,
  );
  const wait =
    client ??
    (await takeAttempt(
      throttleKey("reset-address", email),
      RESET_REQUEST_LIMIT_PER_ADDRESS.limit,
      RESET_REQUEST_LIMIT_PER_ADDRESS.windowSeconds,
    ));
  if (wait !== null) throw new ServiceError("rate_limit", tooManyAttemptsMessage(wait));
}

type Issued = { userId: number; hasPassword: boolean };

/**
 * Stores a new link for the account with `email`, if there is one, and deletes its unused links:
 * one statement, run the same way whether or not the account exists.
 */
async function issueLink(email: string, tokenHash: string, expiresAt: Date): Promise<Issued | null> {
  const rows = await db().$queryRaw<Issued[]>`
    with target as (
      select id, "passwordHash" is not null as "hasPassword" from "User" where email = ${email}
    ), dropped as (
      delete from "PasswordReset" where "userId" in (select id from target) and "usedAt" is null
    ), made as (
      insert into "PasswordReset" ("userId", email, "tokenHash", "expiresAt")
      select id, ${email}, ${tokenHash}, ${expiresAt} from target
      returning "userId"
    )
    select target.id as "userId", target."hasPassword" from target join made on made."userId" = target.id`;
  return rows[0] ?? null;
}

function newLink() {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashResetToken(token), expiresAt: new Date(now().getTime() + RESET_LINK_MINUTES * 60_000) };
}

/**
 * "Forgot password?" from a client at `address`. Resolves the same way (nothing) whether or not an
 * account has the address; throws a ServiceError for a malformed address or beyond the limits.
 */
export async function requestPasswordReset(address: string | undefined, input: unknown): Promise<void> {
  const { email } = parseInput(requestSchema, input);
  await takeRequestAttempt(email, address);
  const { token, tokenHash, expiresAt } = newLink();
  const issued = await issueLink(email, tokenHash, expiresAt);
  if (issued) mailLater({ email, token, hasPassword: issued.hasPassword });
}

/** The admin CLI's `user:reset-link`: a link for the operator to pass on (the operator may learn which accounts exist). */
export async function createResetLink(input: unknown): Promise<{ email: string; url: string; expiresAt: string }> {
  const { email } = parseInput(requestSchema, input);
  const { token, tokenHash, expiresAt } = newLink();
  if (!(await issueLink(email, tokenHash, expiresAt))) throw ServiceError.notFound(`No account has the email address ${email}.`);
  return { email, url: resetUrl(token), expiresAt: expiresAt.toISOString() };
}

export type ResetLinkState = { state: "valid"; email: string } | { state: "invalid" | "expired" | "used" };

async function lookUp(token: unknown): Promise<ResetLinkState & { userId?: number }> {
  if (typeof token !== "string" || !TOKEN.test(token)) return { state: "invalid" };
  const row = await db().passwordReset.findUnique({
    where: { tokenHash: hashResetToken(token) },
    select: { userId: true, email: true, expiresAt: true, usedAt: true, user: { select: { email: true } } },
  });
  // A link made for an address the account no longer has is nobody's.
  if (!row || row.user.email !== row.email) return { state: "invalid" };
  if (row.usedAt) return { state: "used" };
  if (row.expiresAt.getTime() <= now().getTime()) return { state: "expired" };
  return { state: "valid", email: row.email, userId: row.userId };
}

/** What a link is now (the reset page shows the form or says why not). Reading it changes nothing. */
export async function resetLinkState(token: unknown): Promise<ResetLinkState> {
  const link = await lookUp(token);
  return link.state === "valid" ? { state: "valid", email: link.email } : { state: link.state };
}

export const RESET_LINK_MESSAGES: Record<Exclude<ResetLinkState["state"], "valid">, { title: string; text: string }> = {
  invalid: {
    title: "This link is not valid",
    text: "Check that you opened the whole link from the email, or ask for a new one.",
  },
  expired: { title: "This link has expired", text: `Links work for ${RESET_LINK_MINUTES / 60} hour. Ask for a new one.` },
  used: { title: "This link was already used", text: "Each link works once. Sign in, or ask for a new link." },
};

const resetSchema = z.object({ password: passwordSchema });

/**
 * Sets a new password with the link's token (see the rules above). `address` is the client's, whose
 * sign-in failures for the account are forgotten. Throws a ServiceError: `forbidden` for a link that
 * does not work (its message says why), `validation` for the password.
 */
export async function resetPassword(token: unknown, input: unknown, address?: string): Promise<{ email: string }> {
  const link = await lookUp(token);
  if (link.state !== "valid") {
    const { title, text } = RESET_LINK_MESSAGES[link.state];
    throw ServiceError.forbidden(`${title}. ${text}`);
  }
  const { password } = parseInput(resetSchema, input);
  // Hashed only once the link is known to work: a stranger's tokens cost one lookup each.
  const passwordHash = await hashPassword(password);
  const userId = link.userId!;
  const at = now();
  await db().$transaction(async (tx) => {
    // Conditional on the link being still unused, unexpired and for the account's current address:
    // two uses at once cannot both pass, and a change of address meanwhile leaves the link dead.
    const used = await tx.passwordReset.updateMany({
      where: {
        tokenHash: hashResetToken(token as string),
        usedAt: null,
        expiresAt: { gt: at },
        email: link.email,
        user: { email: link.email },
      },
      data: { usedAt: at },
    });
    if (used.count === 0) throw ServiceError.forbidden(`${RESET_LINK_MESSAGES.used.title}. ${RESET_LINK_MESSAGES.used.text}`);
    const before = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { emailVerifiedAt: true } });
    // The mailbox proved the address. Identities linked before it did prove nothing: on an account
    // whose address nobody verified, every one; on a verified one, those linked while it was not.
    if (!before.emailVerifiedAt) await tx.account.deleteMany({ where: { userId } });
    else await dropUnverifiedIdentities(tx, userId);
    await tx.user.update({
      where: { id: userId },
      data: { passwordHash, sessionVersion: { increment: 1 }, emailVerifiedAt: before.emailVerifiedAt ?? at },
    });
    await tx.passwordReset.deleteMany({ where: { userId, usedAt: null } });
  });
  await clearSignInLimits(link.email, address);
  return { email: link.email };
}

/** Drops links that ended more than a day ago (run from the background jobs); recent ones stay to say "expired" or "used". */
export async function pruneResetLinks(): Promise<number> {
  const r = await db().passwordReset.deleteMany({ where: { expiresAt: { lt: new Date(now().getTime() - 86_400_000) } } });
  return r.count;
}

// The mails go out after the answer, in the background: whether one is sent must not change the
// answer or its timing. A clean shutdown waits for them (lib/background.ts).

function mailLater(mail: { email: string; token: string; hasPassword: boolean }): void {
  void inBackground(new Promise<void>((resolve) => setImmediate(resolve)).then(() => sendResetMail(mail)));
}

/** Sends the link (to the server log without SMTP_URL). Never throws: a failed mail is logged. */
async function sendResetMail({ email, token, hasPassword }: { email: string; token: string; hasPassword: boolean }): Promise<void> {
  const url = resetUrl(token);
  const what = hasPassword ? "set a new password" : "set a password (your account signs in with GitHub or Google so far)";
  const ignore = "If you did not ask for this, ignore this email: nothing changes.";
  try {
    await sendMail({
      to: email,
      subject: "Reset your Linkhop password",
      text:
        `Someone asked to reset the password of the Linkhop account ${email}.\n\n` +
        `To ${what}, open this link:\n${url}\n\n` +
        `The link works once, within ${RESET_LINK_MINUTES} minutes. Setting the password signs out every session of the account. ${ignore}\n`,
      html:
        `<p>Someone asked to reset the password of the Linkhop account <strong>${escapeHtml(email)}</strong>.</p>` +
        `<p>To ${escapeHtml(what)}: <a href="${escapeHtml(url)}">Reset my password</a></p>` +
        `<p style="color:#64748b">The link works once, within ${RESET_LINK_MINUTES} minutes. Setting the password signs out every session of the account. ${ignore}</p>`,
    });
  } catch (e) {
    log("auth").error({ to: email, err: e }, "password reset mail failed");
  }
}

function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
