import { monthOf } from "../clock.ts";
import type pg from "pg";
import { db } from "../db/client.ts";

// The monthly link allowance (plan maxLinks, quota key MaxLinks): links created per workspace per
// calendar month in UTC, counted in MonthlyUsage. Reserved inside the transaction that inserts the
// links, so a rolled-back create spends nothing and parallel creates can never pass the limit.
// Deleting a link never gives its unit back.

/** linkAllowanceUsed as an SQL expression (workspace id `p(1)`, month `p(2)`), for a statement that reads more (create-sql.ts precheckStatement). */
export const allowanceUsedSql = (p: (i: number) => string) =>
  `coalesce((select u."created" from "MonthlyUsage" u where u."workspaceId" = ${p(1)}::int and u."month" = ${p(2)}::text), 0)::int`;

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

/** A `pg` connection in a transaction (a create's, create.ts). */
export type AllowanceTx = Pick<pg.ClientBase, "query">;

/** One named (prepared) statement in `tx`. */
async function run<R>(tx: AllowanceTx, name: string, text: string, values: (string | number)[]): Promise<R[]> {
  return (await tx.query({ name, text, values })).rows as R[];
}

/**
 * The quota fragment, every create's: takes `p(3)` units of workspace `p(1)`'s allowance for month
 * `p(2)` when they fit under the limit `p(4)`, returning "created" (no row: they do not fit). `from`
 * names a relation whose emptiness takes nothing (create-sql.ts). Its row stays locked to commit.
 */
export function takeAllowance(p: (i: number) => string, from = ""): string {
  return `
  insert into "MonthlyUsage" as u ("workspaceId", "month", "created")
  select ${p(1)}::int, ${p(2)}::text, ${p(3)}::int ${from} where ${p(3)}::int <= ${p(4)}::int
  on conflict ("workspaceId", "month") do update set "created" = u."created" + ${p(3)}::int
    where u."created" + ${p(3)}::int <= ${p(4)}::int
  returning "created"`;
}

const RESERVE_IF_IT_FITS = takeAllowance((i) => `$${i}`);
const ENSURE_ROW = `
  INSERT INTO "MonthlyUsage" ("workspaceId", "month", "created") VALUES ($1::int, $2::text, 0)
  ON CONFLICT ("workspaceId", "month") DO NOTHING`;
const LOCK_ROW = `SELECT "created" FROM "MonthlyUsage" WHERE "workspaceId" = $1::int AND "month" = $2::text FOR UPDATE`;
const ADD = `UPDATE "MonthlyUsage" SET "created" = "created" + $3::int WHERE "workspaceId" = $1::int AND "month" = $2::text`;

/**
 * Takes up to `wanted` units of the workspace's allowance for `month`, in the caller's transaction.
 * Fast path, one statement: a conditional upsert that adds `wanted` when it fits under `limit`.
 * Otherwise the row (now locked by this transaction) is read and whatever is left is taken.
 * Either way the row stays locked until commit, so concurrent reservations queue behind it.
 */
export async function reserveLinkAllowance(
  tx: AllowanceTx,
  workspaceId: number,
  limit: number,
  wanted: number,
  month = monthOf(),
): Promise<Reservation> {
  if (wanted > 0 && wanted <= limit) {
    const rows = await run<{ created: number }>(tx, "allowance_reserve", RESERVE_IF_IT_FITS, [workspaceId, month, wanted, limit]);
    if (rows.length) return { granted: wanted, current: Number(rows[0].created) };
  } else {
    await run(tx, "allowance_ensure_row", ENSURE_ROW, [workspaceId, month]);
  }
  const [row] = await run<{ created: number }>(tx, "allowance_lock_row", LOCK_ROW, [workspaceId, month]);
  const before = Number(row.created);
  const granted = Math.max(0, Math.min(wanted, limit - before));
  if (granted > 0) await run(tx, "allowance_add", ADD, [workspaceId, month, granted]);
  return { granted, current: before + granted };
}
