import { z } from "zod";
import { withEvents } from "../events/index.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isId, MAX_ID } from "../ids.ts";
import { db, uniqueViolation, type Tx } from "../db/client.ts";
import { serializable } from "../db/serializable.ts";
import { emailSchema } from "../auth/schemas.ts";
import { authorize, can } from "../workspaces/index.ts";
import type { Role } from "../db/generated/enums.ts";

export const roleSchema = z.enum(["owner", "admin", "member"], { message: "Role must be owner, admin or member." });

export type MemberView = { id: number; email: string; role: Role; via: "invitation" | "added" };

/**
 * Makes `userId` a member and records member.joined in the same transaction.
 * Used by member:add (via "added") and by accepting an invitation (via "invitation").
 */
export async function joinWorkspace(
  tx: Tx,
  emit: Parameters<Parameters<typeof withEvents>[0]>[1],
  workspaceId: number,
  userId: number,
  role: Role,
  via: MemberView["via"],
): Promise<MemberView> {
  const ws = await tx.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
  let membership;
  try {
    membership = await tx.membership.create({ data: { workspaceId, userId, role }, include: { user: true } });
  } catch (e) {
    if (uniqueViolation(e)) throw ServiceError.conflict("That person is already a member of this workspace.");
    throw e;
  }
  const member: MemberView = { id: membership.id, email: membership.user.email, role, via };
  await emit(ws, "member.joined", { member });
  return member;
}

const addSchema = z.object({ slug: z.string().min(1), email: emailSchema, role: roleSchema });

/**
 * An admin adds an existing account (admin CLI member:add, and the Members page). Only a verified
 * account: anyone can sign up with someone else's address, so an unverified one may not be its
 * owner. Unknown and unverified addresses get the same answer, which points to an invitation.
 */
export async function addMember(input: unknown): Promise<MemberView> {
  const { slug, email, role } = parseInput(addSchema, input);
  return withEvents(async (tx, emit) => {
    const ws = await tx.workspace.findUnique({ where: { slug } });
    if (!ws) throw ServiceError.notFound(`No workspace ${slug}.`);
    const user = await tx.user.findUnique({ where: { email } });
    if (!user || !user.emailVerifiedAt) {
      throw ServiceError.notFound(
        `No verified account with email ${email}. Invite them instead: the invitation mail lets them sign up or sign in and join.`,
      );
    }
    return joinWorkspace(tx, emit, ws.id, user.id, role, "added");
  });
}

// ---------------------------------------------------------------------------------------------
// Managing members from the Members page. Only owners and admins manage; only owners touch
// owners (promote to, demote from, remove, transfer); a workspace always keeps one owner.

export type MemberRow = { id: number; userId: number; email: string; name: string | null; role: Role; joinedAt: Date };

export async function listMembers(workspaceId: number): Promise<MemberRow[]> {
  const rows = await db().membership.findMany({
    where: { workspaceId },
    include: { user: { select: { email: true, name: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const rank = { owner: 0, admin: 1, member: 2 } as const;
  return rows
    .map((m) => ({ id: m.id, userId: m.userId, email: m.user.email, name: m.user.name, role: m.role, joinedAt: m.createdAt }))
    .sort((a, b) => rank[a.role] - rank[b.role] || a.joinedAt.getTime() - b.joinedAt.getTime());
}

const MEMBERS_CHANGED_AT_ONCE = "Someone else changed the members at the same time. Try again.";
// Serializable, so two concurrent changes can never leave a workspace without an owner.
const serial = <T>(fn: (tx: Tx) => Promise<T>) => serializable(fn, MEMBERS_CHANGED_AT_ONCE);

async function actorAndTarget(tx: Tx, actorUserId: number, slug: string, membershipId: number) {
  const actor = await tx.membership.findFirst({ where: { userId: actorUserId, workspace: { slug } } });
  if (!actor) throw ServiceError.notFound("Workspace not found.");
  const target = await tx.membership.findFirst({ where: { id: membershipId, workspaceId: actor.workspaceId }, include: { user: true } });
  if (!target) throw ServiceError.notFound("That person is not a member of this workspace.");
  return { actor, target };
}

async function ownerCount(tx: Tx, workspaceId: number) {
  return tx.membership.count({ where: { workspaceId, role: "owner" } });
}

const manageSchema = z.object({ membershipId: z.coerce.number().int().positive().max(MAX_ID), role: roleSchema });

export async function changeRole(actorUserId: number, slug: string, input: { membershipId: unknown; role: unknown }) {
  const { membershipId, role } = parseInput(manageSchema, input);
  return serial(async (tx) => {
    const { actor, target } = await actorAndTarget(tx, actorUserId, slug, membershipId);
    if (!can(actor.role, "members.manage")) throw ServiceError.forbidden("Only owners and admins can change roles.");
    if ((target.role === "owner" || role === "owner") && !can(actor.role, "owners.manage")) {
      throw ServiceError.forbidden("Only an owner can make someone an owner or change an owner's role.");
    }
    if (target.role === role) return { id: target.id, email: target.user.email, role };
    if (target.role === "owner" && (await ownerCount(tx, actor.workspaceId)) <= 1) {
      throw ServiceError.conflict("A workspace needs at least one owner. Make someone else owner first.");
    }
    await tx.membership.update({ where: { id: target.id }, data: { role } });
    return { id: target.id, email: target.user.email, role };
  });
}

/** Removes a member; anyone may leave on their own, except the last owner. */
export async function removeMember(actorUserId: number, slug: string, membershipIdInput: unknown) {
  const membershipId = Number(membershipIdInput);
  if (!isId(membershipId)) throw ServiceError.validation("Choose a member.");
  return serial(async (tx) => {
    const { actor, target } = await actorAndTarget(tx, actorUserId, slug, membershipId);
    const self = actor.id === target.id;
    if (!self && !can(actor.role, "members.manage")) throw ServiceError.forbidden("Only owners and admins can remove members.");
    if (!self && target.role === "owner" && !can(actor.role, "owners.manage"))
      throw ServiceError.forbidden("Only an owner can remove an owner.");
    if (target.role === "owner" && (await ownerCount(tx, actor.workspaceId)) <= 1) {
      throw ServiceError.conflict("The last owner cannot leave. Transfer ownership first.");
    }
    await tx.membership.delete({ where: { id: target.id } });
    return { id: target.id, email: target.user.email, self };
  });
}

/** The owner hands ownership to another member and stays on as an admin. */
export async function transferOwnership(actorUserId: number, slug: string, membershipIdInput: unknown) {
  const membershipId = Number(membershipIdInput);
  if (!isId(membershipId)) throw ServiceError.validation("Choose a member.");
  return serial(async (tx) => {
    const { actor, target } = await actorAndTarget(tx, actorUserId, slug, membershipId);
    if (!can(actor.role, "owners.manage")) throw ServiceError.forbidden("Only an owner can transfer ownership.");
    if (actor.id === target.id) throw ServiceError.validation("Choose another member to transfer ownership to.");
    await tx.membership.update({ where: { id: target.id }, data: { role: "owner" } });
    await tx.membership.update({ where: { id: actor.id }, data: { role: "admin" } });
    return { id: target.id, email: target.user.email, role: "owner" as const };
  });
}

/** The Members page's "Add existing account": owners and admins; only owners add owners. */
export async function addMemberAs(actorUserId: number, slug: string, input: { email: unknown; role: unknown }): Promise<MemberView> {
  const m = await authorize({ userId: actorUserId }, slug, "members.manage");
  if (input.role === "owner" && !can(m.role, "owners.manage")) throw ServiceError.forbidden("Only an owner can add another owner.");
  return addMember({ slug, email: input.email, role: input.role });
}
