import { z } from "zod";
import { now as clockNow } from "../clock.ts";
import { db } from "../db/client.ts";
import type { Prisma } from "../db/generated/client.ts";
import { parseInput } from "../errors.ts";
import { monthOf } from "../clock.ts";
import { planOf } from "../plans/index.ts";

// Every workspace of the instance, a page at a time, for the Instance page (its caller checks the
// instance permission): plan, state and what the plan limits, this month.

export const DIRECTORY_PAGE_SIZE = 50;

export const directoryQuerySchema = z.object({
  q: z.string().trim().max(100).default(""),
  page: z.coerce.number().int().min(1).max(10_000).catch(1).default(1),
});

export type DirectoryRow = {
  slug: string;
  name: string;
  plan: { id: string; name: string; known: boolean };
  active: boolean;
  createdAt: Date;
  members: number;
  owner: string | null;
  createdThisMonth: number;
  maxLinks: number;
  liveKeys: number;
  maxKeys: number;
};

export async function workspaceDirectory(input: unknown, now = clockNow()) {
  const { q, page } = parseInput(directoryQuerySchema, input);
  const where: Prisma.WorkspaceWhereInput = q
    ? { OR: [{ slug: { contains: q.toLowerCase() } }, { name: { contains: q, mode: "insensitive" } }] }
    : {};
  const [total, rows] = await Promise.all([
    db().workspace.count({ where }),
    db().workspace.findMany({
      where,
      orderBy: { id: "asc" },
      skip: (page - 1) * DIRECTORY_PAGE_SIZE,
      take: DIRECTORY_PAGE_SIZE,
      select: {
        id: true,
        slug: true,
        name: true,
        plan: true,
        active: true,
        createdAt: true,
        _count: { select: { memberships: true } },
        memberships: { where: { role: "owner" }, orderBy: { id: "asc" }, take: 1, select: { user: { select: { email: true } } } },
      },
    }),
  ]);
  const ids = rows.map((r) => r.id);
  const [usage, keys] = await Promise.all([
    db().monthlyUsage.findMany({ where: { workspaceId: { in: ids }, month: monthOf(now) }, select: { workspaceId: true, created: true } }),
    db().apiKey.groupBy({
      by: ["workspaceId"],
      where: { workspaceId: { in: ids }, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      _count: { _all: true },
    }),
  ]);
  const created = new Map(usage.map((u) => [u.workspaceId, u.created]));
  const liveKeys = new Map(keys.map((k) => [k.workspaceId, k._count._all]));
  const list: DirectoryRow[] = rows.map((r) => {
    const plan = planOf(r.plan);
    return {
      slug: r.slug,
      name: r.name,
      plan: { id: r.plan, name: plan.name, known: plan.id === r.plan },
      active: r.active,
      createdAt: r.createdAt,
      members: r._count.memberships,
      owner: r.memberships[0]?.user.email ?? null,
      createdThisMonth: created.get(r.id) ?? 0,
      maxLinks: plan.maxLinks,
      liveKeys: liveKeys.get(r.id) ?? 0,
      maxKeys: plan.liveKeys,
    };
  });
  return { q, page, pageSize: DIRECTORY_PAGE_SIZE, total, rows: list };
}
