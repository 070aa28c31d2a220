import { z } from "zod";
import { db } from "../db/client.ts";
import type { Workspace } from "../db/generated/client.ts";
import { hasSecondFactor } from "../auth/two-factor.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { hasFeature, planOf } from "../plans/index.ts";

// A workspace on a plan with RequireSecondFactor (Team, Business) can require a second factor from
// every member. A member without one reaches nothing of it in the app (its pages, its server
// actions, its CSV export, its API-key management) until they set one up on the Account page; the
// check is in `authorize` and `workspacePage`, so every way in passes it. API keys keep working:
// they are not people signing in, and the owner can revoke any of them.

export const SECOND_FACTOR_REQUIRED_MESSAGE = "This workspace requires a second factor. Set one up on your Account page, then come back.";

/** Refuses a member without a second factor when the workspace requires one. */
export async function assertSecondFactor(workspace: Pick<Workspace, "requireTwoFactor">, userId: number): Promise<void> {
  if (workspace.requireTwoFactor && !(await hasSecondFactor(userId))) {
    throw new ServiceError("forbidden", SECOND_FACTOR_REQUIRED_MESSAGE, { extra: { code: "second_factor_required" } });
  }
}

/** Whether a refusal is assertSecondFactor's (pages send the member to the page that explains it). */
export function isSecondFactorRefusal(e: unknown): boolean {
  return e instanceof ServiceError && e.extra.code === "second_factor_required";
}

const requireSchema = z.object({ require: z.boolean() });

/**
 * Turns the requirement on or off (owners; `authorize` with security.manage is the caller's job).
 * On needs the plan's feature, and the owner's own second factor, so the owner is not the first
 * one shut out.
 */
export async function setSecondFactorRequired(
  ctx: { workspace: Workspace; userId: number | null },
  input: unknown,
): Promise<{ requireTwoFactor: boolean }> {
  const { require } = parseInput(requireSchema, input);
  if (require) {
    if (!hasFeature(planOf(ctx.workspace.plan), "RequireSecondFactor")) {
      throw ServiceError.feature("RequireSecondFactor", "Your plan does not include requiring a second factor. Upgrade to use it.");
    }
    if (ctx.userId !== null && !(await hasSecondFactor(ctx.userId))) {
      throw ServiceError.validation("Set up your own second factor on your Account page first.");
    }
  }
  await db().workspace.update({ where: { id: ctx.workspace.id }, data: { requireTwoFactor: require } });
  return { requireTwoFactor: require };
}

/**
 * The first workspace (oldest membership) the account may open now: one that does not require a
 * second factor, or any when the account has one. The Account page is shown inside it; null: none.
 */
export async function firstOpenWorkspaceSlug(userId: number): Promise<string | null> {
  const ms = await db().membership.findMany({
    where: { userId },
    select: { workspace: { select: { slug: true, requireTwoFactor: true } } },
    orderBy: { createdAt: "asc" },
    take: 100,
  });
  const open = ms.find((m) => !m.workspace.requireTwoFactor);
  if (open) return open.workspace.slug;
  return ms.length && (await hasSecondFactor(userId)) ? ms[0].workspace.slug : null;
}
