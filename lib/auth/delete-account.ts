import { z } from "zod";
import type { Tx } from "../db/client.ts";
import { db } from "../db/client.ts";
import type { Role } from "../db/generated/enums.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { sendMail } from "../mail/index.ts";
import { serializable } from "../db/serializable.ts";
import { confirmIdentity, type Reauth } from "./reauth.ts";
import { escapeHtml } from "./verification.ts";
import { log } from "../log/index.ts";

// Deleting an account. Confirmed like an address change (lib/auth/reauth.ts: the password, or a
// recent sign-in without one). Workspaces own links, keys, domains and endpoints, so what happens
// to each of the user's workspaces decides:
// - the user is its only member: the workspace is deleted with the account, and the user must
//   name it in the request (a second confirmation: the form ticks each one);
// - the user is its only owner and others are members: refused until ownership is transferred
//   (Members page), since a workspace always keeps an owner;
// - otherwise the user's membership goes and the workspace stays as it is, with everything in it.
// Removing the membership is what "leaving" does on the Members page (lib/members removeMember),
// which emits no event: there is no member.left event type, so none is owed to webhooks.
// The user row goes last; its sessions (the jwt callback finds no user), its OAuth identities
// (Account rows cascade) and its password go with it. Invitations the user sent keep their
// invitedById (no foreign key) and stay valid. Click events of deleted workspaces are removed by
// the analytics retention job (events of workspaces that no longer exist).

export type WorkspaceFate = {
  slug: string;
  name: string;
  role: Role;
  members: number;
  links: number;
  fate: "deleted" | "blocked" | "left";
};

/** Each of the user's workspaces and what deleting the account would do to it. */
export async function accountDeletionPlan(userId: number, tx: Tx = db()): Promise<WorkspaceFate[]> {
  const mine = await tx.membership.findMany({
    where: { userId },
    include: { workspace: { select: { id: true, slug: true, name: true, _count: { select: { memberships: true, links: true } } } } },
    orderBy: { createdAt: "asc" },
  });
  const owners = await tx.membership.groupBy({
    by: ["workspaceId"],
    where: { workspaceId: { in: mine.map((m) => m.workspaceId) }, role: "owner" },
    _count: { _all: true },
  });
  const ownerCount = new Map(owners.map((o) => [o.workspaceId, o._count._all]));
  return mine.map((m) => {
    const members = m.workspace._count.memberships;
    const fate = members <= 1 ? "deleted" : m.role === "owner" && (ownerCount.get(m.workspaceId) ?? 0) <= 1 ? "blocked" : ("left" as const);
    return { slug: m.workspace.slug, name: m.workspace.name, role: m.role, members, links: m.workspace._count.links, fate };
  });
}

const deleteSchema = z.object({
  password: z.string().max(1024),
  /** Slugs of the workspaces the user agreed to delete with the account. */
  confirm: z.array(z.string().max(100)).max(1000),
});

// What races with a deletion is a change of members, so the answer is the Members page's (lib/members).
const MEMBERS_CHANGED_AT_ONCE = "Someone else changed the members at the same time. Try again.";

/** Deletes the account (see above). Returns what happened to each workspace. */
export async function deleteAccount(
  userId: number,
  input: unknown,
  proof: Omit<Reauth, "password">,
): Promise<{ email: string; workspaces: WorkspaceFate[] }> {
  const { password, confirm } = parseInput(deleteSchema, input);
  const { email } = await confirmIdentity(userId, { ...proof, password }, "password");
  // Serializable: a member joining a workspace about to be deleted, or an owner leaving one the
  // user would leave too, makes one of the two transactions fail and try again on the new state.
  const workspaces = await serializable(async (tx) => {
    const plan = await accountDeletionPlan(userId, tx);
    const blocked = plan.filter((w) => w.fate === "blocked");
    if (blocked.length)
      throw ServiceError.conflict(
        `You are the only owner of ${list(blocked)}, which ${blocked.length === 1 ? "has" : "have"} other members. ` +
          `Make another member owner on the Members page first (Transfer ownership), or remove the other members.`,
      );
    const doomed = plan.filter((w) => w.fate === "deleted");
    const missing = doomed.filter((w) => !confirm.includes(w.slug));
    if (missing.length)
      throw ServiceError.validation([
        { path: "confirm", message: `Tick each workspace that will be deleted with your account: ${list(missing)}.` },
      ]);
    if (doomed.length) {
      const ids = (await tx.workspace.findMany({ where: { slug: { in: doomed.map((w) => w.slug) } }, select: { id: true } })).map(
        (w) => w.id,
      );
      // Links first: a link's domain is ON DELETE RESTRICT, and the workspace's cascade would
      // otherwise meet a domain whose links are not gone yet.
      await tx.link.deleteMany({ where: { workspaceId: { in: ids } } });
      await tx.workspace.deleteMany({ where: { id: { in: ids } } });
    }
    await tx.user.delete({ where: { id: userId } });
    return plan;
  }, MEMBERS_CHANGED_AT_ONCE);
  await notifyDeleted(email, workspaces);
  return { email, workspaces };
}

const list = (ws: WorkspaceFate[]) => ws.map((w) => `“${w.name}” (${w.slug})`).join(", ");

async function notifyDeleted(email: string, workspaces: WorkspaceFate[]) {
  const gone = workspaces.filter((w) => w.fate === "deleted");
  const text =
    `Your Linkhop account ${email} was deleted. You can no longer sign in with it.\n\n` +
    (gone.length ? `Deleted with it: ${list(gone)}, with their links, keys and webhook endpoints.\n\n` : "") +
    `If this was not you, contact the operator of this Linkhop service.\n`;
  try {
    await sendMail({
      to: email,
      subject: "Your Linkhop account was deleted",
      text,
      html: text
        .trim()
        .split("\n\n")
        .map((p) => `<p>${escapeHtml(p)}</p>`)
        .join(""),
    });
  } catch (e) {
    log("auth").error({ to: email, err: e }, "account deletion notice failed");
  }
}
