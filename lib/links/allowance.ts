import { now } from "../clock.ts";
import { db, type Tx } from "../db/client.ts";

// The monthly link allowance (plan maxLinks, quota key MaxLinks): links created per workspace per
// calendar month in UTC, counted in MonthlyUsage. Reserved inside the transaction that inserts the
// links, so a rolled-back create spends nothing and parallel creates can never pass the limit.
// Deleting a link never gives its unit back.

/** "YYYY-MM" of the calendar month (UTC); by default the current one on the app's clock. */
export function monthOf(at: Date = now()): string {
  return at.toISOString().slice(0, 7);
}

/**
 * Links the workspace created in `month`, read without a lock: the cheap pre-check before the
 * (slow) password hashes. Only ever used to refuse early; the reservation below decides.
 */
export async function linkAllowanceUsed(workspaceId: number, month: string): Promise<number> {
  const row = await db().monthlyUsage.findUnique({ where: { workspaceId_month: { workspaceId, month } }, select: { created: true } });
  return row?.created ?? 0;
}

export type Reservation = {
  /** units taken, 0..wanted */
  granted: number;
  /** links created this month, after the reservation */
  current: number;
};

/**
 * Takes up to `wanted` units of the workspace's allowance for `month`, in the caller's transaction.
 * Fast path, one statement: a conditional upsert that adds `wanted` when it fits under `limit`.
 * Otherwise the row (now locked by this transaction) is read and whatever is left is taken.
 * Either way the row stays locked until commit, so concurrent reservations queue behind it.
 */
export async function reserveLinkAllowance(
  tx: Tx,
  workspaceId: number,
  limit: number,
  wanted: number,
  month = monthOf(),
): Promise<Reservation> {
  if (wanted > 0 && wanted <= limit) {
    const rows = await tx.$queryRaw<{ created: number }[]>`
      INSERT INTO "MonthlyUsage" AS u ("workspaceId", "month", "created")
      VALUES (${workspaceId}::int, ${month}, ${wanted}::int)
      ON CONFLICT ("workspaceId", "month") DO UPDATE SET "created" = u."created" + ${wanted}::int
        WHERE u."created" + ${wanted}::int <= ${limit}::int
      RETURNING "created"`;
    if (rows.length) return { granted: wanted, current: Number(rows[0].created) };
  } else {
    await tx.$executeRaw`
      INSERT INTO "MonthlyUsage" ("workspaceId", "month", "created") VALUES (${workspaceId}::int, ${month}, 0)
      ON CONFLICT ("workspaceId", "month") DO NOTHING`;
  }
  const [row] = await tx.$queryRaw<{ created: number }[]>`
    SELECT "created" FROM "MonthlyUsage" WHERE "workspaceId" = ${workspaceId}::int AND "month" = ${month} FOR UPDATE`;
  const before = Number(row.created);
  const granted = Math.max(0, Math.min(wanted, limit - before));
  if (granted > 0) {
    await tx.$executeRaw`
      UPDATE "MonthlyUsage" SET "created" = "created" + ${granted}::int WHERE "workspaceId" = ${workspaceId}::int AND "month" = ${month}`;
  }
  return { granted, current: before + granted };
}
