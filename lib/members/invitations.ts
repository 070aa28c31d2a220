import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { config } from "../config/index.ts";
import { db, type Tx } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { withEvents, type Emit } from "../events/index.ts";
import { sendMail } from "../mail/index.ts";
import { emailSchema } from "../auth/schemas.ts";
import { authorize, can } from "../workspaces/index.ts";
import { throttleKey } from "../auth/throttle.ts";
import { giveBackAttempt, takeAttempt } from "../auth/throttle-sql.ts";
import { joinWorkspace, roleSchema, type MemberView } from "./index.ts";
import type { Role } from "../db/generated/enums.ts";
import { log } from "../log/index.ts";

// Invitations: an owner or admin invites an email address; the invitee gets a mail with a link
// APP_URL/invite/<token>. Only the token's SHA-256 is stored; it expires after 7 days and works
// once. Accepting needs an account with the invited email (signing up on the invite page makes
// one), so a forwarded link cannot make someone else a member.
//
// The token proves nothing about the mailbox: the inviter sees it too (the dialog and the Members
// page show the link to pass on by hand). So an invitation never verifies an address, never sets
// a password and never creates a verified account; accepting needs an account whose address was
// verified by a link that only the mailbox received (lib/auth/verification.ts).
//
// The mail goes to any address the inviter types and carries the workspace's name, which its
// owners choose: so the mails are limited per inviter, per workspace and per address (revoking and
// inviting again counts each time), and the name is quoted as data in the body, never the subject.

export const INVITATION_DAYS = 7;
/** Invitation mails per inviter and hour (any workspace). */
export const INVITE_MAILS_PER_INVITER = { limit: 20, windowSeconds: 60 * 60 };
/** Invitation mails per workspace and hour (any inviter). */
export const INVITE_MAILS_PER_WORKSPACE = { limit: 20, windowSeconds: 60 * 60 };
/** Invitation mails per invited address and day (any workspace): revoke and invite again cannot flood one mailbox. */
export const INVITE_MAILS_PER_ADDRESS = { limit: 3, windowSeconds: 24 * 60 * 60 };

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function inviteUrl(token: string): string {
  return `${config().APP_URL}/invite/${token}`;
}

const inviteSchema = z.object({ email: emailSchema, role: roleSchema });

export type InvitationRow = { id: number; email: string; role: Role; createdAt: Date; expiresAt: Date; invitedBy: string | null };

export async function listInvitations(workspaceId: number): Promise<InvitationRow[]> {
  const rows = await db().invitation.findMany({
    where: { workspaceId, acceptedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
  const inviterIds = [...new Set(rows.map((r) => r.invitedById).filter((x): x is number => x !== null))];
  const inviters = new Map(
    (await db().user.findMany({ where: { id: { in: inviterIds } }, select: { id: true, email: true } })).map((u) => [u.id, u.email]),
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    createdAt: r.createdAt,
    expiresAt: r.expiresAt,
    invitedBy: r.invitedById ? (inviters.get(r.invitedById) ?? null) : null,
  }));
}

export type InviteResult = { id: number; email: string; role: Role; url: string; mailed: boolean; mailError?: string };

/**
 * Creates (or renews: a pending invitation for the same email is replaced) an invitation and
 * mails the accept link. Beyond the mail limits the invitation is refused entirely (rate_limit):
 * nothing is stored, nothing is sent. The invitation stands when the mail fails; the caller shows
 * the link so it can be passed on by hand.
 */
export async function inviteMember(actorUserId: number, slug: string, input: { email: unknown; role: unknown }): Promise<InviteResult> {
  const actor = await authorize({ userId: actorUserId }, slug, "members.manage");
  const { email, role } = parseInput(inviteSchema, input);
  if (role === "owner" && !can(actor.role, "owners.manage")) throw ServiceError.forbidden("Only an owner can invite another owner.");
  const ws = actor.workspace;
  // Before the limits: inviting a member already in spends nothing (the transaction checks again).
  await assertNotMember(db(), ws.id, email);
  const taken = await takeInviteMail(actorUserId, ws.id, email);

  const token = randomBytes(32).toString("base64url");
  let invitation;
  try {
    invitation = await db().$transaction(async (tx) => {
      await assertNotMember(tx, ws.id, email);
      await tx.invitation.deleteMany({ where: { workspaceId: ws.id, email, acceptedAt: null } });
      return tx.invitation.create({
        data: {
          workspaceId: ws.id,
          email,
          role,
          tokenHash: hashToken(token),
          invitedById: actorUserId,
          expiresAt: new Date(Date.now() + INVITATION_DAYS * 86_400_000),
        },
      });
    });
  } catch (e) {
    // nothing was sent: the mail's place under the limits is given back
    for (const key of taken) await giveBackAttempt(key);
    throw e;
  }

  const inviter = await db().user.findUnique({ where: { id: actorUserId }, select: { email: true } });
  const url = inviteUrl(token);
  try {
    await sendMail(invitationMail({ inviter: inviter?.email ?? "A Linkhop user", invitee: email, workspace: ws.name, role, url }));
    return { id: invitation.id, email, role, url, mailed: true };
  } catch (e) {
    log("members").error({ to: email, err: e }, "invitation mail failed");
    return { id: invitation.id, email, role, url, mailed: false, mailError: (e as Error).message };
  }
}

async function assertNotMember(q: Pick<Tx, "membership">, workspaceId: number, email: string) {
  const member = await q.membership.findFirst({ where: { workspaceId, user: { email } }, select: { id: true } });
  if (member) throw ServiceError.conflict(`${email} is already a member of this workspace.`);
}

/**
 * Takes one mail under each limit (AuthThrottle, lib/auth/throttle-sql.ts: atomic, across processes),
 * or none: a refusal gives back what the earlier limits took. Returns the keys taken.
 */
async function takeInviteMail(inviterId: number, workspaceId: number, email: string): Promise<string[]> {
  const limits = [
    { key: throttleKey("invite-inviter", String(inviterId)), ...INVITE_MAILS_PER_INVITER, what: "by you" },
    { key: throttleKey("invite-workspace", String(workspaceId)), ...INVITE_MAILS_PER_WORKSPACE, what: "from this workspace" },
    { key: throttleKey("invite-address", email), ...INVITE_MAILS_PER_ADDRESS, what: `to ${email}` },
  ];
  const taken: string[] = [];
  for (const { key, limit, windowSeconds, what } of limits) {
    const wait = await takeAttempt(key, limit, windowSeconds);
    if (wait !== null) {
      for (const k of taken) await giveBackAttempt(k);
      const per = windowSeconds > 3600 ? "a day" : "an hour";
      throw new ServiceError("rate_limit", `Too many invitations sent ${what} (at most ${limit} ${per}). Try again in ${waitText(wait)}.`);
    }
    taken.push(key);
  }
  return taken;
}

function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes <= 90) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  return `${Math.ceil(minutes / 60)} hours`;
}

/**
 * The invitation mail. The subject is fixed; the body says who invited whom, and the workspace's
 * name (any text its owners typed, a URL too) appears only quoted, as a string (JSON quoting: its
 * own quotes and line breaks cannot end the quote), and HTML-escaped in the HTML part.
 */
export function invitationMail(m: { inviter: string; invitee: string; workspace: string; role: Role; url: string }) {
  const as = `as ${article(m.role)} ${m.role}`;
  const notice =
    `The workspace name was chosen by its owners, not by Linkhop. The link works once and expires in ${INVITATION_DAYS} days. ` +
    "If you did not expect this, ignore this email.";
  return {
    to: m.invitee,
    subject: "Invitation to join a workspace on Linkhop",
    text:
      `${m.inviter} invited ${m.invitee} to the workspace ${JSON.stringify(m.workspace)} on Linkhop ${as}.\n\n` +
      `Accept the invitation:\n${m.url}\n\n${notice}\n`,
    html:
      `<p>${escapeHtml(m.inviter)} invited ${escapeHtml(m.invitee)} to the workspace &quot;${escapeHtml(m.workspace)}&quot; on Linkhop ${as}.</p>` +
      `<p><a href="${escapeHtml(m.url)}">Accept the invitation</a></p>` +
      `<p style="color:#64748b">${notice}</p>`,
  };
}

export async function revokeInvitation(actorUserId: number, slug: string, invitationId: unknown) {
  const actor = await authorize({ userId: actorUserId }, slug, "members.manage");
  const id = Number(invitationId);
  if (!isId(id)) throw ServiceError.validation("Choose an invitation.");
  const r = await db().invitation.deleteMany({ where: { id, workspaceId: actor.workspace.id, acceptedAt: null } });
  if (r.count === 0) throw ServiceError.notFound("That invitation no longer exists.");
  return { id };
}

export type InvitationLookup =
  | { state: "invalid" }
  | { state: "expired" | "accepted" | "pending"; email: string; role: Role; workspace: { slug: string; name: string } };

/**
 * What the invite page shows for a token (never reveals anything for an unknown token). Nothing
 * about an account with the invited address: whoever holds the token (the inviter too) would learn
 * whether it exists and whether it is verified.
 */
export async function lookupInvitation(token: string): Promise<InvitationLookup> {
  if (!token || token.length > 100) return { state: "invalid" };
  const inv = await db().invitation.findUnique({ where: { tokenHash: hashToken(token) }, include: { workspace: true } });
  if (!inv || !inv.workspace.active) return { state: "invalid" };
  const state = inv.acceptedAt ? "accepted" : inv.expiresAt <= new Date() ? "expired" : "pending";
  return { state, email: inv.email, role: inv.role, workspace: { slug: inv.workspace.slug, name: inv.workspace.name } };
}

/**
 * The signed-in user accepts: their email must be the invited one, verified by mail. Marks the
 * invitation used and makes them a member (member.joined, via "invitation") in one transaction.
 */
export async function acceptInvitation(userId: number, token: string): Promise<{ slug: string; member: MemberView | null }> {
  return withEvents((tx, emit) => acceptInTx(tx, emit, userId, token));
}

export const UNVERIFIED_MESSAGE = "Confirm your email address first: open the link we mailed to it, then accept the invitation.";

async function acceptInTx(tx: Tx, emit: Emit, userId: number, token: string): Promise<{ slug: string; member: MemberView | null }> {
  const inv = await tx.invitation.findUnique({ where: { tokenHash: hashToken(token) }, include: { workspace: true } });
  if (!inv || !inv.workspace.active) throw ServiceError.notFound("This invitation link is not valid.");
  const user = await tx.user.findUniqueOrThrow({ where: { id: userId } });
  if (user.email !== inv.email) {
    throw ServiceError.forbidden(`This invitation is for ${inv.email}. Sign in with that email address to accept it.`);
  }
  const existing = await tx.membership.findFirst({ where: { workspaceId: inv.workspaceId, userId } });
  if (inv.acceptedAt) {
    if (existing) return { slug: inv.workspace.slug, member: null };
    throw ServiceError.conflict("This invitation was already used.");
  }
  if (inv.expiresAt <= new Date()) throw ServiceError.conflict("This invitation has expired. Ask for a new one.");
  // The inviter holds the same token, so it cannot stand for the mailbox: only the verification
  // link, which went to the address alone, can.
  if (!user.emailVerifiedAt) throw ServiceError.forbidden(UNVERIFIED_MESSAGE);
  // Claimed with a condition: a double click accepts once.
  const claimed = await tx.invitation.updateMany({ where: { id: inv.id, acceptedAt: null }, data: { acceptedAt: new Date() } });
  if (claimed.count === 0 || existing) return { slug: inv.workspace.slug, member: null };
  const member = await joinWorkspace(tx, emit, inv.workspaceId, userId, inv.role, "invitation");
  return { slug: inv.workspace.slug, member };
}

function article(role: string) {
  return /^[aeiou]/.test(role) ? "an" : "a";
}

function escapeHtml(s: string) {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
