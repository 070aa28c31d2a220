import type pg from "pg";
import { analyticsRetentionDays, FALLBACK_ANALYTICS_RETENTION_DAYS, planOf, plans } from "../plans/index.ts";
import { deleteRollupsBefore } from "./rollup-sql.ts";
import { DAY_MS } from "./visitor.ts";
import {
  deleteExpiredEvents,
  deleteOrphanEvents,
  dropMonthPartition,
  ensureMonthPartition,
  listMonthPartitions,
  monthOf,
  nextMonth,
  type MonthKey,
} from "./sql.ts";

// Keeping the click table in shape (lib/analytics/jobs.ts runs this at start and every hour):
// - the partitions of this month and the next MONTHS_AHEAD exist before a click needs them;
// - events older than their workspace plan's analyticsRetentionDays are deleted, and whole monthly
//   partitions older than the longest retention of any plan are dropped (cheap, no row deletes).

export const MONTHS_AHEAD = 2;

export async function createComingPartitions(pool: pg.Pool, now = Date.now()): Promise<MonthKey[]> {
  const made: MonthKey[] = [];
  let m = monthOf(now);
  for (let i = 0; i <= MONTHS_AHEAD; i++, m = nextMonth(m)) {
    await ensureMonthPartition(pool, m);
    made.push(m);
  }
  return made;
}

/** The plan retention table as the delete statement takes it. */
export function retentionTable(): { planIds: string[]; days: number[]; fallbackDays: number; longest: number } {
  const table = Object.values(plans());
  const planIds = table.map((p) => p.id);
  const days = table.map((p) => analyticsRetentionDays(p));
  // a workspace whose plan id is no longer in the table is treated as the first plan (planOf)
  const fallbackDays = table.length ? analyticsRetentionDays(planOf("")) : FALLBACK_ANALYTICS_RETENTION_DAYS;
  return { planIds, days, fallbackDays, longest: Math.max(fallbackDays, ...days) };
}

export type RetentionResult = { deleted: number; droppedPartitions: string[] };

export async function applyRetention(pool: pg.Pool, now = Date.now()): Promise<RetentionResult> {
  const { planIds, days, fallbackDays, longest } = retentionTable();
  const dropped: string[] = [];
  const cutoff = now - longest * DAY_MS;
  for (const m of await listMonthPartitions(pool)) {
    const end = Date.UTC(nextMonth(m).year, nextMonth(m).month - 1, 1);
    if (end > cutoff) break;
    await dropMonthPartition(pool, m);
    dropped.push(`${m.year}-${String(m.month).padStart(2, "0")}`);
  }
  const deleted = (await deleteExpiredEvents(pool, planIds, days, fallbackDays, new Date(now))) + (await deleteOrphanEvents(pool));
  await deleteRollupsBefore(pool, { planIds, days, fallbackDays }, new Date(now));
  return { deleted, droppedPartitions: dropped };
}
