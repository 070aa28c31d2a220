import { db } from "../db/client.ts";
import type { Workspace } from "../db/generated/client.ts";
import type { Role } from "../db/generated/enums.ts";
import { ServiceError } from "../errors.ts";
import { assertWritable } from "./writable.ts";
import { assertSecondFactor } from "./second-factor.ts";

// Who may do what in a workspace: one table of permissions, each with its minimum role, whether it
// changes anything (a change is checked against the workspace's state by assertWritable), and what
// a refusal says. Server actions and pages (lib/actions), services that decide per target
// (lib/members) and the admin CLI all go through `authorize` or `can`.

export const ROLE_RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export function atLeast(role: Role, min: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[min];
}

const ADMIN_ONLY = "Only a workspace owner or admin can do this.";

export const PERMISSIONS = {
  /** See the workspace's pages; leave it (lib/members decides the rest per target). */
  "workspace.view": { role: "member", write: false, refusal: "Workspace not found." },
  /** Act on the Members page; lib/members checks members.manage / owners.manage per target. */
  "members.act": { role: "member", write: true, refusal: ADMIN_ONLY },
  "links.write": { role: "member", write: true, refusal: "Only members can change links." },
  /** Save and delete Analytics views (lib/analytics/saved-views.ts). */
  "analytics.views": { role: "member", write: true, refusal: "Only members can save views." },
  /** Create and revoke read-only share links of saved views: they show figures to anyone with the URL. */
  "analytics.share": { role: "admin", write: true, refusal: "Only owners and admins can share analytics views." },
  "workspace.manage": { role: "admin", write: true, refusal: ADMIN_ONLY },
  "members.manage": { role: "admin", write: true, refusal: ADMIN_ONLY },
  "keys.manage": { role: "admin", write: true, refusal: "Only owners and admins can create or revoke API keys." },
  "domains.manage": { role: "admin", write: true, refusal: "Only owners and admins can manage domains." },
  "webhooks.view": { role: "admin", write: false, refusal: "Only owners and admins can manage webhooks." },
  "webhooks.manage": { role: "admin", write: true, refusal: "Only owners and admins can manage webhooks." },
  "owners.manage": { role: "owner", write: true, refusal: "Only a workspace owner can do this." },
  /** Require a second factor from every member (lib/workspaces/second-factor.ts). */
  "security.manage": { role: "owner", write: true, refusal: "Only a workspace owner can change this." },
} as const satisfies Record<string, { role: Role; write: boolean; refusal: string }>;

export type Permission = keyof typeof PERMISSIONS;

export function can(role: Role, permission: Permission): boolean {
  return atLeast(role, PERMISSIONS[permission].role);
}

/** The workspace with the actor's standing in it. The operator (admin CLI) has no membership. */
export type WorkspaceContext = { workspace: Workspace; role: Role; userId: number | null; membershipId: number | null };

/** A signed-in user, or the operator running the admin CLI (above every role). */
export type Actor = { userId: number } | "operator";

/** The caller's membership in a workspace, or null (the app answers 404 for non-members). */
export async function membershipOf(userId: number, slug: string) {
  // A slug from a URL that no workspace can have (NUL bytes, 10 kB) is not sent to the database.
  if (typeof slug !== "string" || slug.length > 64 || slug.includes("\0")) return null;
  const m = await db().membership.findFirst({
    where: { userId, workspace: { slug } },
    include: { workspace: true },
  });
  return m ? { role: m.role, membershipId: m.id, workspace: m.workspace } : null;
}

/** The workspace with this slug (the one lookup by slug), or not_found. */
export async function findWorkspace(slug: string): Promise<Workspace> {
  const ws = typeof slug === "string" ? await db().workspace.findUnique({ where: { slug } }) : null;
  if (!ws) throw ServiceError.notFound(`No workspace ${slug}.`);
  return ws;
}

/**
 * The actor's context in workspace `slug` when it holds `permission`: not_found for a non-member
 * (a workspace's existence is not revealed), forbidden to a member without a second factor when
 * the workspace requires one, forbidden below the permission's role, and for a change by a member,
 * whatever assertWritable refuses (a deactivated workspace is read-only).
 */
export async function authorize(actor: Actor, slug: string, permission: Permission): Promise<WorkspaceContext> {
  if (actor === "operator") {
    return { workspace: await findWorkspace(slug), role: "owner", userId: null, membershipId: null };
  }
  const m = await membershipOf(actor.userId, slug);
  if (!m) throw ServiceError.notFound("Workspace not found.");
  await assertSecondFactor(m.workspace, actor.userId);
  if (!can(m.role, permission)) throw ServiceError.forbidden(PERMISSIONS[permission].refusal);
  if (PERMISSIONS[permission].write) await assertWritable(m.workspace.id);
  return { workspace: m.workspace, role: m.role, userId: actor.userId, membershipId: m.membershipId };
}
