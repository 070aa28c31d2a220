import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { confirmIdentity, type Reauth } from "./reauth.ts";
import QRCode from "qrcode";
import { Secret, TOTP } from "otpauth";
import { z } from "zod";
import { now } from "../clock.ts";
import { db } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { signInSucceeded, takeSignInAttempt, tooManyAttemptsMessage } from "./throttle.ts";

// A second factor: TOTP (RFC 6238: SHA-1, 6 digits, 30 s, what every authenticator app reads from
// an otpauth:// QR code) plus ten one-time recovery codes.
//
// - The secret is stored AES-256-GCM encrypted with a key derived from AUTH_SECRET (HKDF), so a
//   database dump alone does not give it away; changing AUTH_SECRET makes enrolled secrets
//   unreadable (those accounts then sign in with a recovery code and enrol again).
// - Recovery codes carry 60 random bits each, so one SHA-256 is enough to store them; each is
//   spent by one conditional UPDATE (usedAt IS NULL), so it works once even under parallel use.
// - A TOTP code is accepted once: the last accepted time step is kept and only a later step is
//   accepted, by one conditional UPDATE (two parallel sign-ins with the same code: one wins).
// - "Now" is lib/clock.ts, so tests use a known secret at a known time.
// - Guessing codes counts against the sign-in limits (lib/auth/throttle.ts) per client address and
//   per account and client address, like wrong passwords, and against a per-account limit of codes
//   of its own: at sign-in, and when disabling from a signed-in session.

const PERIOD = 30;
const DIGITS = 6;
/** Codes of the step before and after are accepted too: phones' clocks drift. */
const WINDOW = 1;
const ISSUER = "Linkhop";
export const RECOVERY_CODE_COUNT = 10;
/** How long the password step of a sign-in waits for the code. */
export const PENDING_SIGN_IN_SECONDS = 5 * 60;
/** The cookie that carries the half-signed-in state between the password and the code. */
export const PENDING_COOKIE = "linkhop.second-factor";

function authSecret(): string {
  const secret = process.env.AUTH_SECRET;
  if (!secret) throw new Error("AUTH_SECRET is not set: start through server.ts or set it");
  return secret;
}

function secretKey(): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret(), "linkhop-totp", "totp-secret-encryption-v1", 32));
}

/** "v1.<iv>.<tag>.<ciphertext>" (base64url) of the base32 secret. */
export function encryptSecret(base32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", secretKey(), iv);
  const data = Buffer.concat([cipher.update(base32, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
}

export function decryptSecret(stored: string): string | null {
  const [version, iv, tag, data] = stored.split(".");
  if (version !== "v1" || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", secretKey(), Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    // another AUTH_SECRET, or a tampered value: as if there were no secret
    return null;
  }
}

function totp(base32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: "SHA1", digits: DIGITS, period: PERIOD, secret: Secret.fromBase32(base32) });
}

/** The time step a code was made for, when it is within the window around now; else null. */
function matchingStep(base32: string, code: string): number | null {
  const t = now().getTime();
  const delta = totp(base32, "").validate({ token: code, timestamp: t, window: WINDOW });
  return delta === null ? null : Math.floor(t / 1000 / PERIOD) + delta;
}

const totpCode = (code: string) => code.replace(/\s+/g, "");
const isTotpCode = (code: string) => new RegExp(`^\\d{${DIGITS}}$`).test(totpCode(code));
/** Recovery codes are shown as xxxx-xxxx-xxxx; case, spaces and dashes do not matter. */
const normalRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]+/g, "");
const hashRecoveryCode = (code: string) =>
  createHash("sha256")
    .update(`linkhop-recovery\n${normalRecoveryCode(code)}`)
    .digest("hex");

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no 0/o, 1/l/i: read off paper
function newRecoveryCode(): string {
  // 12 characters of 31: about 59 bits
  const chars = Array.from({ length: 12 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
}

const codeSchema = z.object({
  code: z.string().trim().min(1, "Enter the code from your authenticator app.").max(64, "That code is not right."),
});

export type TwoFactorStatus =
  { state: "off" } | { state: "pending"; secret: string; uri: string; qrSvg: string } | { state: "on"; recoveryCodesLeft: number };

/** What the Account page shows: off, an enrolment waiting for its first code (with its QR code), or on. */
export async function twoFactorStatus(userId: number): Promise<TwoFactorStatus> {
  const user = await db().user.findUnique({
    where: { id: userId },
    select: { email: true, totpEnabledAt: true, totpPendingSecret: true },
  });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (user.totpEnabledAt) {
    const left = await db().twoFactorRecoveryCode.count({ where: { userId, usedAt: null } });
    return { state: "on", recoveryCodesLeft: left };
  }
  const secret = user.totpPendingSecret ? decryptSecret(user.totpPendingSecret) : null;
  if (!secret) return { state: "off" };
  const uri = totp(secret, user.email).toString();
  const qrSvg = await QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return { state: "pending", secret, uri, qrSvg };
}

/** Whether the user signs in with a second factor. */
export async function hasSecondFactor(userId: number): Promise<boolean> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { totpEnabledAt: true } });
  return !!user?.totpEnabledAt;
}

/** Starts (or starts over) an enrolment: a new secret, generated here, waiting for its first code. */
export async function startEnrolment(userId: number): Promise<void> {
  const secret = new Secret({ size: 20 }).base32;
  const r = await db().user.updateMany({ where: { id: userId, totpEnabledAt: null }, data: { totpPendingSecret: encryptSecret(secret) } });
  if (r.count === 0) throw ServiceError.conflict("A second factor is already on. Turn it off first to set up another.");
}

/**
 * Confirms the enrolment with a current code: the second factor is on from now, and the ten
 * recovery codes are returned, the only time they are ever shown. The account's password (or a
 * recent sign-in, lib/auth/reauth.ts) is asked first: with a session alone, a stolen cookie could
 * turn it on with the thief's phone and lock the owner out.
 */
export async function confirmEnrolment(userId: number, input: unknown, proof: Reauth): Promise<{ recoveryCodes: string[] }> {
  const { code } = parseInput(codeSchema, input);
  await confirmIdentity(userId, proof);
  const user = await db().user.findUnique({ where: { id: userId }, select: { totpEnabledAt: true, totpPendingSecret: true } });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (user.totpEnabledAt) throw ServiceError.conflict("A second factor is already on.");
  const secret = user.totpPendingSecret ? decryptSecret(user.totpPendingSecret) : null;
  if (!secret) throw ServiceError.validation("Start the setup again.");
  const step = isTotpCode(code) ? matchingStep(secret, totpCode(code)) : null;
  if (step === null) {
    throw ServiceError.validation([
      { path: "code", message: "That code is not right. Check the time on your phone and enter the current code." },
    ]);
  }
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db().$transaction(async (tx) => {
    // conditional on the secret read above: a second setup started meanwhile is not enabled by this code
    const r = await tx.user.updateMany({
      where: { id: userId, totpEnabledAt: null, totpPendingSecret: user.totpPendingSecret },
      data: { totpSecret: encryptSecret(secret), totpPendingSecret: null, totpEnabledAt: now(), totpLastStep: step },
    });
    if (r.count === 0) throw ServiceError.conflict("The setup changed meanwhile. Start again.");
    await tx.twoFactorRecoveryCode.deleteMany({ where: { userId } });
    await tx.twoFactorRecoveryCode.createMany({ data: recoveryCodes.map((c) => ({ userId, codeHash: hashRecoveryCode(c) })) });
  });
  return { recoveryCodes };
}

/**
 * Checks a second-factor code of the user and spends it: a TOTP code of a step later than the last
 * accepted one, or an unused recovery code. Not throttled here: callers take a sign-in attempt first.
 */
export async function spendSecondFactorCode(userId: number, code: string): Promise<boolean> {
  if (typeof code !== "string" || code.length > 64) return false;
  const user = await db().user.findUnique({ where: { id: userId }, select: { totpSecret: true, totpEnabledAt: true } });
  if (!user?.totpEnabledAt || !user.totpSecret) return false;
  if (isTotpCode(code)) {
    const secret = decryptSecret(user.totpSecret);
    const step = secret ? matchingStep(secret, totpCode(code)) : null;
    if (step === null) return false;
    const r = await db().user.updateMany({
      where: { id: userId, totpEnabledAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return r.count === 1;
  }
  const r = await db().twoFactorRecoveryCode.updateMany({
    where: { userId, codeHash: hashRecoveryCode(code), usedAt: null },
    data: { usedAt: now() },
  });
  return r.count === 1;
}

/**
 * Turns the second factor off, with a current code or a recovery code. Counted like a sign-in from
 * `address`: a stolen session must not become a way to guess codes.
 */
export async function disableSecondFactor(userId: number, input: unknown, address?: string): Promise<void> {
  const { code } = parseInput(codeSchema, input);
  const user = await db().user.findUnique({ where: { id: userId }, select: { email: true, totpEnabledAt: true } });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (!user.totpEnabledAt) throw ServiceError.conflict("The second factor is already off.");
  const gate = await takeSignInAttempt(user.email, address, { step: "code" });
  if (!gate.ok) throw new ServiceError("rate_limit", tooManyAttemptsMessage(gate.retryAfterSeconds));
  if (!(await spendSecondFactorCode(userId, code))) {
    throw ServiceError.validation([{ path: "code", message: "That code is not right." }]);
  }
  await signInSucceeded(gate);
  await db().$transaction([
    db().user.update({
      where: { id: userId },
      data: { totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null },
    }),
    db().twoFactorRecoveryCode.deleteMany({ where: { userId } }),
  ]);
}

// The half-signed-in state: after the password (or GitHub/Google), a cookie holding
// "<uid>.<sessionVersion>.<expires>.<hmac>", keyed with AUTH_SECRET for this one purpose. It is
// good for 5 minutes and only while the session version is unchanged (a sign-out everywhere or a
// password change ends it), and it proves nothing by itself: the code step still needs the code.

function pendingMac(userId: number, sessionVersion: number, expires: number): Buffer {
  return createHmac("sha256", `linkhop-second-factor-pending\n${authSecret()}`).update(`${userId}\n${sessionVersion}\n${expires}`).digest();
}

/** The pending token for a user whose password (or provider) was right; null without a second factor. */
export async function pendingSignInToken(userId: number): Promise<string | null> {
  const user = await db().user.findUnique({ where: { id: userId }, select: { sessionVersion: true, totpEnabledAt: true } });
  if (!user?.totpEnabledAt) return null;
  const expires = Math.floor(now().getTime() / 1000) + PENDING_SIGN_IN_SECONDS;
  return `${userId}.${user.sessionVersion}.${expires}.${pendingMac(userId, user.sessionVersion, expires).toString("base64url")}`;
}

/**
 * A token shaped like a pending token that no code completes (its MAC is random): the answer to a
 * wrong password on a locked account with a second factor (lib/auth/index.ts), which must look
 * like the answer to the right one.
 */
export function decoyPendingToken(userId: number, sessionVersion: number): string {
  const expires = Math.floor(now().getTime() / 1000) + PENDING_SIGN_IN_SECONDS;
  return `${userId}.${sessionVersion}.${expires}.${randomBytes(32).toString("base64url")}`;
}

/**
 * Whether `token` has a pending token's form and has not expired: the code page shows its form for
 * it without checking the MAC, so a decoy (decoyPendingToken) gets the same page as a real one.
 */
export function pendingTokenLooksCurrent(token: unknown): boolean {
  const m = /^(\d{1,10})\.(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(typeof token === "string" ? token : "");
  return m !== null && Number(m[3]) * 1000 >= now().getTime();
}

/** The user a pending token stands for, while it is good; else null. */
export async function pendingSignInUser(token: unknown): Promise<{ id: number; email: string; name: string | null } | null> {
  const m = /^(\d{1,10})\.(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(typeof token === "string" ? token : "");
  if (!m) return null;
  const [userId, version, expires] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (userId > 2_147_483_647 || expires * 1000 < now().getTime()) return null;
  const given = Buffer.from(m[4], "base64url");
  const expected = pendingMac(userId, version, expires);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const user = await db().user.findUnique({
    where: { id: userId },
    select: { email: true, name: true, sessionVersion: true, totpEnabledAt: true },
  });
  if (!user || user.sessionVersion !== version || !user.totpEnabledAt) return null;
  return { id: userId, email: user.email, name: user.name };
}

/**
 * The code step of a sign-in: the pending token's user, if the code is right. Counted against the
 * sign-in limits of that account from `address`, as a password is.
 */
export async function completeSignIn(
  token: unknown,
  code: unknown,
  address: string | undefined,
): Promise<{ ok: true; user: { id: number; email: string; name: string | null } } | { ok: false; retryAfterSeconds?: number }> {
  const user = await pendingSignInUser(token);
  if (!user || typeof code !== "string" || !code.trim()) return { ok: false };
  // The pending token proves the password: the code step has its own account limit, which wrong
  // passwords (a stranger locking the account) never fill.
  const gate = await takeSignInAttempt(user.email, address, { step: "code" });
  if (!gate.ok) return { ok: false, retryAfterSeconds: gate.retryAfterSeconds };
  if (!(await spendSecondFactorCode(user.id, code.trim()))) return { ok: false };
  await signInSucceeded(gate);
  return { ok: true, user };
}

/**
 * The operator's way out for someone who lost both their phone and their recovery codes (admin CLI
 * `user:second-factor-off`): the second factor is removed and every session of the account ends.
 */
export async function removeSecondFactorByOperator(email: unknown): Promise<{ email: string; secondFactor: false }> {
  const address = typeof email === "string" ? email.trim().toLowerCase() : "";
  const user = address ? await db().user.findUnique({ where: { email: address }, select: { id: true } }) : null;
  if (!user) throw ServiceError.notFound(`No user with email ${address}.`);
  await db().$transaction([
    db().user.update({
      where: { id: user.id },
      data: { totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null, sessionVersion: { increment: 1 } },
    }),
    db().twoFactorRecoveryCode.deleteMany({ where: { userId: user.id } }),
  ]);
  return { email: address, secondFactor: false };
}
