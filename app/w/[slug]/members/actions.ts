"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { idSchema } from "@/lib/ids";
import { addMemberAs, changeRole, removeMember, transferOwnership } from "@/lib/members";
import { inviteMember, revokeInvitation } from "@/lib/members/invitations";

// Thin wrappers: who may do what to whom is decided in lib/members (members.manage, owners.manage;
// one place for the app and the CLI); here any member may act (members.act), e.g. to leave.

const act = { permission: "members.act", revalidate: "/members" } as const;
const person = z.object({ email: z.unknown(), role: z.unknown() });
const membership = z.object({ id: idSchema });

export const inviteAction = workspaceAction({ ...act, schema: person }, async ({ userId, slug }, input) =>
  inviteMember(userId, slug, input),
);

export const addExistingAction = workspaceAction({ ...act, schema: person }, async ({ userId, slug }, input) =>
  addMemberAs(userId, slug, input),
);

export const changeRoleAction = workspaceAction(
  { ...act, schema: z.object({ id: idSchema, role: z.unknown() }) },
  async ({ userId, slug }, { id, role }) => changeRole(userId, slug, { membershipId: id, role }),
);

export const removeMemberAction = workspaceAction({ ...act, schema: membership }, async ({ userId, slug }, { id }) =>
  removeMember(userId, slug, id),
);

export const transferOwnershipAction = workspaceAction({ ...act, schema: membership }, async ({ userId, slug }, { id }) =>
  transferOwnership(userId, slug, id),
);

export const revokeInvitationAction = workspaceAction({ ...act, schema: membership }, async ({ userId, slug }, { id }) =>
  revokeInvitation(userId, slug, id),
);
