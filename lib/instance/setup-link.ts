import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { now } from "../clock.ts";
import { config } from "../config/index.ts";
import { db, type Tx } from "../db/client.ts";
import { serializable } from "../db/serializable.ts";
import { parseInput, ServiceError } from "../errors.ts";

// The first operator of a fresh instance. While no account is an instance administrator, every
// start (server.ts) and the admin CLI's `instance:setup-link` make a one-time setup link: a random
// 256-bit token of which only the SHA-256 is stored (InstanceSettings row 1, one link at a time:
// a new one replaces the last). Opened by a signed-in account, it makes that account the instance
// administrator, once, within SETUP_LINK_MINUTES (the app's clock, lib/clock.ts). Signing up first
// makes no one an administrator: only whoever can read the server's output or run the CLI has the link.
//
// The grant is one serializable transaction that takes the token (a conditional update: of two
// openers one finds it gone), re-checks that there is still no administrator (a concurrent grant,
// by the CLI or another link, makes one of the two transactions fail and retry) and sets the flag.

export const SETUP_LINK_MINUTES = 60;
export const SETUP_PATH = "/setup/";

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

export const ADMIN_EXISTS_MESSAGE =
  "This instance already has an instance administrator. Ask them, or grant another with `npm run admin -- instance:admin --email <address>`.";
const INVALID_MESSAGE =
  "This setup link is not valid: it was used, replaced by a newer one, or has expired. Print a new one with `npm run admin -- instance:setup-link`.";

export type SetupLink = { url: string; expiresAt: string };

/** Whether any account is an instance administrator (granted, or listed in INSTANCE_ADMINS with a verified address). */
async function adminExists(tx: Tx): Promise<boolean> {
  const listed = config().INSTANCE_ADMINS;
  const row = await tx.user.findFirst({
    where: { OR: [{ instanceAdmin: true }, ...(listed.length ? [{ email: { in: listed }, emailVerifiedAt: { not: null } }] : [])] },
    select: { id: true },
  });
  return row !== null;
}

/** A new setup link (replacing any earlier one); conflict when the instance already has an administrator. */
export async function createSetupLink(): Promise<SetupLink> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now().getTime() + SETUP_LINK_MINUTES * 60_000);
  await serializable(async (tx) => {
    if (await adminExists(tx)) throw ServiceError.conflict(ADMIN_EXISTS_MESSAGE);
    const data = { setupTokenHash: hashOf(token), setupTokenExpiresAt: expiresAt };
    await tx.instanceSettings.upsert({ where: { id: 1 }, create: { id: 1, ...data }, update: data });
  }, "The instance's administrators changed meanwhile; try again.");
  return { url: `${config().APP_URL}${SETUP_PATH}${token}`, expiresAt: expiresAt.toISOString() };
}

/** At a start: a new setup link while the instance has no administrator, else null. */
export async function setupLinkAtStart(): Promise<SetupLink | null> {
  if (await adminExists(db())) return null;
  try {
    return await createSetupLink();
  } catch (e) {
    if (e instanceof ServiceError && e.code === "conflict") return null; // made meanwhile
    throw e;
  }
}

const redeemSchema = z.object({ userId: z.number().int().positive(), token: z.string() });

/**
 * Makes the signed-in account `userId` the instance administrator with the link's token. Refused
 * (forbidden) when the token is not the open one or has expired, or when an administrator exists.
 */
export async function redeemSetupLink(input: unknown): Promise<{ email: string }> {
  const { userId, token } = parseInput(redeemSchema, input);
  if (!TOKEN.test(token)) throw ServiceError.forbidden(INVALID_MESSAGE);
  const hash = hashOf(token);
  return serializable(async (tx) => {
    const taken = await tx.instanceSettings.updateMany({
      where: { id: 1, setupTokenHash: hash, setupTokenExpiresAt: { gt: now() } },
      data: { setupTokenHash: null, setupTokenExpiresAt: null },
    });
    if (taken.count === 0) throw ServiceError.forbidden(INVALID_MESSAGE);
    if (await adminExists(tx)) throw ServiceError.forbidden(ADMIN_EXISTS_MESSAGE);
    const granted = await tx.user.updateManyAndReturn({ where: { id: userId }, data: { instanceAdmin: true }, select: { email: true } });
    if (granted.length === 0) throw ServiceError.forbidden("Sign in first, then open the setup link again.");
    return granted[0];
  }, "Someone else used the setup link at the same time.");
}
