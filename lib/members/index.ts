import { z } from "zod";
import { withEvents } from "../events/index.ts";
import { AppError } from "../errors.ts";
import { uniqueViolation, type Tx } from "../db/client.ts";
import { emailSchema } from "../workspaces/index.ts";
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
    if (uniqueViolation(e)) throw new AppError("conflict", "That person is already a member of this workspace.");
    throw e;
  }
  const member: MemberView = { id: membership.id, email: membership.user.email, role, via };
  await emit(ws, "member.joined", { member });
  return member;
}

const addSchema = z.object({ slug: z.string().min(1), email: emailSchema, role: roleSchema });

/** An admin adds an existing account (admin CLI member:add, and the Members page). */
export async function addMember(input: unknown): Promise<MemberView> {
  const parsed = addSchema.safeParse(input);
  if (!parsed.success) throw new AppError("validation", parsed.error.issues.map((i) => i.message).join(" "));
  const { slug, email, role } = parsed.data;
  return withEvents(async (tx, emit) => {
    const ws = await tx.workspace.findUnique({ where: { slug } });
    if (!ws) throw new AppError("not_found", `No workspace ${slug}.`);
    const user = await tx.user.findUnique({ where: { email } });
    if (!user) throw new AppError("not_found", `No account with email ${email}. Invite them instead.`);
    return joinWorkspace(tx, emit, ws.id, user.id, role, "added");
  });
}
