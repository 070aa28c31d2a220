"use server";
import { revalidatePath } from "next/cache";
import { addMemberAs, changeRole, removeMember, transferOwnership } from "@/lib/members";
import { inviteMember, revokeInvitation, type InviteResult } from "@/lib/members/invitations";
import { actionFailure, ok, type ActionResult } from "@/lib/actions/result";
import { requireMember } from "../access";

// Thin wrappers: who may do what is decided in lib/members (one place for app and CLI).
async function run<T>(slug: string, fn: (userId: number) => Promise<T>, fields?: string[]): Promise<ActionResult<T>> {
  const { userId } = await requireMember(slug);
  try {
    const data = await fn(userId);
    revalidatePath(`/w/${slug}/members`);
    return ok(data);
  } catch (e) {
    return actionFailure(e, fields);
  }
}

export async function inviteAction(slug: string, input: { email: string; role: string }): Promise<ActionResult<InviteResult>> {
  return run(slug, (userId) => inviteMember(userId, slug, input));
}

export async function addExistingAction(slug: string, input: { email: string; role: string }) {
  return run(slug, (userId) => addMemberAs(userId, slug, input));
}

export async function changeRoleAction(slug: string, membershipId: number, role: string) {
  return run(slug, (userId) => changeRole(userId, slug, { membershipId, role }));
}

export async function removeMemberAction(slug: string, membershipId: number) {
  return run(slug, (userId) => removeMember(userId, slug, membershipId));
}

export async function transferOwnershipAction(slug: string, membershipId: number) {
  return run(slug, (userId) => transferOwnership(userId, slug, membershipId));
}

export async function revokeInvitationAction(slug: string, invitationId: number) {
  return run(slug, (userId) => revokeInvitation(userId, slug, invitationId));
}
