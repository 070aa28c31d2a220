import { now as clockNow } from "../clock.ts";
import { db } from "../db/client.ts";
import { monthOf } from "../clock.ts";

// The figures the workspace's home and "Plan and usage" pages show.

/** Links, links created this month (the allowance's count) and members. */
export async function workspaceOverview(workspaceId: number, now = clockNow()) {
  const [links, createdThisMonth, members] = await Promise.all([
    db().link.count({ where: { workspaceId } }),
    createdInMonth(workspaceId, now),
    db().membership.count({ where: { workspaceId } }),
  ]);
  return { links, createdThisMonth, members };
}

/** What the plan limits: links created this month, live API keys, webhook endpoints. */
export async function workspaceUsage(workspaceId: number, now = clockNow()) {
  const [createdThisMonth, liveKeys, endpoints] = await Promise.all([
    createdInMonth(workspaceId, now),
    db().apiKey.count({ where: { workspaceId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } }),
    db().webhookEndpoint.count({ where: { workspaceId } }),
  ]);
  return { createdThisMonth, liveKeys, endpoints };
}

async function createdInMonth(workspaceId: number, now: Date): Promise<number> {
  const usage = await db().monthlyUsage.findUnique({ where: { workspaceId_month: { workspaceId, month: monthOf(now) } } });
  return usage?.created ?? 0;
}

/** Addresses of the workspace's owners (at most five), for "ask your workspace owner". */
export async function ownerContacts(workspaceId: number): Promise<string[]> {
  const rows = await db().membership.findMany({
    where: { workspaceId, role: "owner" },
    orderBy: { id: "asc" },
    take: 5,
    select: { user: { select: { email: true } } },
  });
  return rows.map((r) => r.user.email);
}
