import { shared } from "../registry.ts";
import { createHash } from "node:crypto";
import { z } from "zod";
import { db } from "../db/client.ts";
import type { ApiKey, Workspace } from "../db/generated/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { planOf } from "../plans/index.ts";
import { randomBase62 } from "./random.ts";
import { cachedLookup, forgetApiKeys } from "./cache.ts";
import { log } from "../log/index.ts";

// API keys (docs/api.md "Keys"): "lh_" + 40 base62 characters, shown once; stored only as a SHA-256 hash
// plus a short display prefix. A key is live while it is neither revoked nor expired; the plan
// caps the live keys of a workspace.

export const API_KEY_PATTERN = /^lh_[0-9A-Za-z]{40}$/;
const PREFIX_LENGTH = 11; // "lh_" + 8 characters: enough to tell keys apart, useless for guessing

export function generateApiKey(): string {
  return "lh_" + randomBase62(40);
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function keyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

export function isLive(key: Pick<ApiKey, "revokedAt" | "expiresAt">, now = new Date()): boolean {
  return !key.revokedAt && (!key.expiresAt || key.expiresAt > now);
}

export type KeyStatus = "live" | "revoked" | "expired";
export function keyStatus(key: Pick<ApiKey, "revokedAt" | "expiresAt">, now = new Date()): KeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt <= now) return "expired";
  return "live";
}

export const createKeySchema = z.strictObject({
  // required, so a key in the list says what uses it (the app's form and the CLI's --name alike)
  name: z
    .string({ message: "Enter a name for the key, e.g. what uses it." })
    .trim()
    .min(1, "Enter a name for the key, e.g. what uses it.")
    .max(80, "Use at most 80 characters for the key name."),
  expiresInDays: z.coerce
    .number({ message: "Expiry must be a whole number of days." })
    .int("Expiry must be a whole number of days.")
    .min(1, "Expiry must be at least 1 day.")
    .max(3650, "Expiry can be at most 3650 days.")
    .nullable()
    .default(null),
});
export type CreateKeyInput = z.input<typeof createKeySchema>;

export type CreatedKey = { id: number; key: string; prefix: string; name: string; expiresAt: Date | null; createdAt: Date };

/**
 * Creates a key and returns it in full, the only time it exists in clear. The workspace row is
 * locked for the count-and-insert, so parallel creations cannot pass the plan's live-key cap.
 */
export async function createApiKey(workspace: Pick<Workspace, "id">, input: CreateKeyInput): Promise<CreatedKey> {
  const { name, expiresInDays } = parseInput(createKeySchema, input);
  const key = generateApiKey();
  return db().$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ plan: string }[]>`SELECT "plan" FROM "Workspace" WHERE "id" = ${workspace.id}::int FOR UPDATE`;
    if (locked.length === 0) throw ServiceError.notFound("Workspace not found.");
    const plan = planOf(locked[0].plan);
    const now = new Date();
    const live = await tx.apiKey.count({
      where: { workspaceId: workspace.id, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
    });
    if (live >= plan.liveKeys) {
      throw ServiceError.limit(
        plan.liveKeys === 0
          ? `The ${plan.name} plan does not include API keys. Upgrade the plan to use the API.`
          : `The ${plan.name} plan allows ${plan.liveKeys} live API key${plan.liveKeys === 1 ? "" : "s"}, and this workspace has ${live}. Revoke a key or upgrade the plan to create another.`,
      );
    }
    const row = await tx.apiKey.create({
      data: {
        workspaceId: workspace.id,
        name,
        prefix: keyPrefix(key),
        hash: hashApiKey(key),
        expiresAt: expiresInDays ? new Date(now.getTime() + expiresInDays * 86_400_000) : null,
      },
    });
    return { id: row.id, key, prefix: row.prefix, name: row.name, expiresAt: row.expiresAt, createdAt: row.createdAt };
  });
}

/** Revokes a key of the workspace (idempotent: revoking a revoked key keeps its first revocation time). */
export async function revokeApiKey(workspace: Pick<Workspace, "id">, id: number): Promise<{ id: number; revoked: true }> {
  if (!isId(id)) throw ServiceError.validation("The key id must be a positive integer.");
  const key = await db().apiKey.findFirst({ where: { id, workspaceId: workspace.id }, select: { id: true, revokedAt: true } });
  if (!key) throw ServiceError.notFound(`No API key ${id} in this workspace.`);
  if (!key.revokedAt) await db().apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  // this process at once; the others when the trigger's notification reaches them (cache.ts)
  forgetApiKeys();
  return { id, revoked: true };
}

export type KeyView = Pick<ApiKey, "id" | "name" | "prefix" | "createdAt" | "expiresAt" | "revokedAt" | "lastUsedAt"> & {
  status: KeyStatus;
};

/** The workspace's keys, newest first, without anything secret. */
export async function listApiKeys(workspace: Pick<Workspace, "id">): Promise<KeyView[]> {
  const rows = await db().apiKey.findMany({
    where: { workspaceId: workspace.id },
    select: { id: true, name: true, prefix: true, createdAt: true, expiresAt: true, revokedAt: true, lastUsedAt: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const now = new Date();
  return rows.map((r) => ({ ...r, status: keyStatus(r, now) }));
}

export type AuthenticatedKey = { keyId: number; workspace: Workspace };

type LiveKeyRow = { id: number; lastUsedAt: Date | null; expiresAt: Date | null; workspace: Workspace };
/** Finds the live key of an active workspace with this hash (the one lookup of authentication). */
export type KeyLookup = (hash: string, now: Date) => Promise<LiveKeyRow | null>;

/**
 * Stands in for a malformed or missing key, so it is hashed and looked up like any other: same
 * length as a real key, and never a stored hash (keys are base62, "!" is not).
 */
const DECOY_KEY = "lh_" + "!".repeat(40);

/** Liveness and the workspace's state are conditions of the query: a revoked, expired or switched-off key finds nothing, like an unknown one. */
export const findLiveApiKey: KeyLookup = (hash, now) =>
  db().apiKey.findFirst({
    where: { hash, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }], workspace: { active: true } },
    select: { id: true, lastUsedAt: true, expiresAt: true, workspace: true },
  });

/** findLiveApiKey behind the process's key cache (cache.ts): what the API authenticates with. */
export const cachedLiveApiKey: KeyLookup = cachedLookup(findLiveApiKey);

/**
 * The key and workspace for a presented key, or null when the key is missing, malformed, unknown,
 * revoked or expired, or the workspace is inactive. Callers answer every null the same way, and
 * every case does the same work (one hash of a key-sized string, one lookup that finds nothing;
 * through the cache, a known and an unknown hash alike are looked up once and then kept), so the
 * answer time does not tell a key that exists from one that does not.
 */
export async function authenticateApiKey(
  presented: string | null | undefined,
  lookup: KeyLookup = cachedLiveApiKey,
): Promise<AuthenticatedKey | null> {
  const wellFormed = typeof presented === "string" && API_KEY_PATTERN.test(presented);
  const row = await lookup(hashApiKey(wellFormed ? presented : DECOY_KEY), new Date());
  if (!row || !wellFormed) return null;
  touchLastUsed(row.id, row.lastUsedAt);
  return { keyId: row.id, workspace: row.workspace };
}

// lastUsedAt is written at most once a minute per key: a process remembers its last write, and
// the conditional UPDATE keeps several processes from writing more often than that either.
const TOUCH_EVERY_MS = 60_000;
const touches = shared("key-touches", () => new Map<number, number>());

function touchLastUsed(keyId: number, lastUsedAt: Date | null) {
  const now = Date.now();
  if (lastUsedAt && now - lastUsedAt.getTime() < TOUCH_EVERY_MS) return;
  if (now - (touches.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
  touches.set(keyId, now);
  if (touches.size > 10_000) touches.clear();
  db()
    .$executeRaw`UPDATE "ApiKey" SET "lastUsedAt" = now() WHERE "id" = ${keyId}::int AND ("lastUsedAt" IS NULL OR "lastUsedAt" < now() - interval '1 minute')`.catch(
    (e) => log("keys").error({ keyId, err: e }, "could not record lastUsedAt"),
  );
}
