import { randomBytes } from "node:crypto";
import { z } from "zod";
import { db, uniqueViolation, type Tx } from "../db/client.ts";
import { emailSchema } from "../auth/schemas.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isPlanId, plans } from "../plans/index.ts";
import type { Role } from "../db/generated/enums.ts";
import { DEACTIVATED_CANCEL_REASON } from "./writable.ts";

import { authorize, findWorkspace } from "./access.ts";

export { assertWritable, DEACTIVATED_MESSAGE } from "./writable.ts";
export { ownerContacts, workspaceOverview, workspaceUsage } from "./overview.ts";
export { DIRECTORY_PAGE_SIZE, workspaceDirectory, type DirectoryRow } from "./directory.ts";
export {
  assertSecondFactor,
  firstOpenWorkspaceSlug,
  isSecondFactorRefusal,
  SECOND_FACTOR_REQUIRED_MESSAGE,
  setSecondFactorRequired,
} from "./second-factor.ts";
export {
  atLeast,
  authorize,
  can,
  findWorkspace,
  membershipOf,
  PERMISSIONS,
  ROLE_RANK,
  type Actor,
  type Permission,
  type WorkspaceContext,
} from "./access.ts";

export const slugSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/, "A slug is 1 to 40 letters, digits or dashes, not starting or ending with a dash.");
export const workspaceNameSchema = z.string().trim().min(1, "Enter a name.").max(80, "Use at most 80 characters.");

const parse = parseInput;

async function uniqueSlug(tx: Tx, base: string): Promise<string> {
  const clean =
    base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 30) || "workspace";
  for (let i = 0; i < 20; i++) {
    const slug = i === 0 ? clean : `${clean}-${randomBytes(3).toString("hex")}`;
    if (!(await tx.workspace.findUnique({ where: { slug }, select: { id: true } }))) return slug;
  }
  return `${clean}-${randomBytes(6).toString("hex")}`;
}

/**
 * A new account's own workspace (plan free) with the account as owner, in the sign-up's
 * transaction (signUp in lib/auth/users.ts). The slug comes from the address, the name from the
 * account's name or address.
 */
export async function createFirstWorkspace(tx: Tx, owner: { userId: number; email: string; name?: string | null }) {
  const { userId, email, name } = owner;
  const slug = await uniqueSlug(tx, email.split("@")[0]);
  const workspace = await tx.workspace.create({
    data: { slug, name: name ? `${name}'s workspace` : `${email.split("@")[0]}'s workspace`, plan: defaultPlanId() },
  });
  await tx.membership.create({ data: { workspaceId: workspace.id, userId, role: "owner" } });
  return { id: workspace.id, slug: workspace.slug };
}

export function defaultPlanId(): string {
  return isPlanId("free") ? "free" : Object.keys(plans())[0];
}

const createWorkspaceSchema = z.object({
  slug: slugSchema,
  name: workspaceNameSchema,
  owner: emailSchema,
  plan: z.string().optional(),
});

export async function createWorkspace(input: unknown) {
  const { slug, name, owner, plan } = parse(createWorkspaceSchema, input);
  const planId = plan ?? defaultPlanId();
  if (!isPlanId(planId)) throw ServiceError.validation(`Unknown plan ${planId}. Plans: ${Object.keys(plans()).join(", ")}.`);
  if (RESERVED_SLUGS.has(slug)) throw ServiceError.validation(`The slug ${slug} is reserved.`);
  try {
    return await db().$transaction(async (tx) => {
      const user = await tx.user.findUnique({ where: { email: owner } });
      if (!user) throw ServiceError.notFound(`No user with email ${owner}.`);
      const ws = await tx.workspace.create({ data: { slug, name, plan: planId } });
      await tx.membership.create({ data: { workspaceId: ws.id, userId: user.id, role: "owner" } });
      return { id: ws.id, slug: ws.slug, plan: ws.plan };
    });
  } catch (e) {
    if (uniqueViolation(e)) throw ServiceError.conflict(`The slug ${slug} is taken.`);
    throw e;
  }
}

const RESERVED_SLUGS = new Set(["new", "settings", "api", "admin"]);

export async function setPlan(slug: string, plan: string) {
  if (!isPlanId(plan)) throw ServiceError.validation(`Unknown plan ${plan}. Plans: ${Object.keys(plans()).join(", ")}.`);
  await findWorkspace(slug);
  const ws = await db().workspace.update({ where: { slug }, data: { plan } });
  return { slug: ws.slug, plan: ws.plan };
}

/**
 * Switches a workspace on or off. Switching off also cancels its pending webhook deliveries (with
 * the reason in the delivery log), in the same transaction, so nothing queued is sent afterwards.
 */
export async function setActive(slug: string, active: boolean) {
  await findWorkspace(slug);
  return db().$transaction(async (tx) => {
    const ws = await tx.workspace.update({ where: { slug }, data: { active } });
    if (!active) {
      await tx.delivery.updateMany({
        where: { status: "pending", endpoint: { workspaceId: ws.id } },
        data: { status: "cancelled", cancelReason: DEACTIVATED_CANCEL_REASON, nextAttemptAt: null, lockedUntil: null },
      });
    }
    return { slug: ws.slug, active: ws.active };
  });
}

export async function renameWorkspace(userId: number, slug: string, name: unknown) {
  const m = await authorize({ userId }, slug, "workspace.manage");
  const clean = parse(workspaceNameSchema, name);
  await db().workspace.update({ where: { id: m.workspace.id }, data: { name: clean } });
  return { slug, name: clean };
}

export async function workspacesOf(userId: number) {
  const ms = await db().membership.findMany({
    where: { userId },
    include: { workspace: { select: { slug: true, name: true, plan: true, active: true } } },
    orderBy: { createdAt: "asc" },
  });
  return ms.map((m) => ({ ...m.workspace, role: m.role }));
}

export type { Role };

/** The account's email and whether it has a password (accounts made through OAuth have none). */
export async function accountOf(userId: number) {
  const u = await db().user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, passwordHash: true } });
  return { email: u.email, hasPassword: u.passwordHash !== null };
}

/** The email of a user, or null. */
export async function emailOf(userId: number): Promise<string | null> {
  return (await db().user.findUnique({ where: { id: userId }, select: { email: true } }))?.email ?? null;
}

/** The id of the account with this email (already normalised), or null. */
export async function userIdByEmail(email: string): Promise<number | null> {
  return (await db().user.findUnique({ where: { email }, select: { id: true } }))?.id ?? null;
}
