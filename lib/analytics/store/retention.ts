import type pg from "pg";
import { analyticsRetentionDays, FALLBACK_ANALYTICS_RETENTION_DAYS, planOf, plans } from "../../plans/index.ts";
import { DAY_MS } from "../model.ts";
import { dropMonthPartition, listMonthPartitions, nextMonth } from "./partitions.ts";
import type { Queryable } from "../../db/queryable.ts";

// Forgetting what a workspace's plan no longer keeps (lib/analytics/jobs.ts runs this every hour):
// events older than their workspace plan's analyticsRetentionDays are deleted with their daily
// rollups, and whole monthly partitions older than the longest retention of any plan are dropped
// (cheap, no row deletes).

/**
 * Deletes the events older than their workspace's retention: `days[i]` for workspaces on
 * `planIds[i]`, `fallbackDays` for any other plan id. Returns the number of rows deleted.
 */
export async function deleteExpiredEvents(
  q: Queryable,
  planIds: string[],
  days: number[],
  fallbackDays: number,
  now = new Date(),
): Promise<number> {
  const { rowCount } = await q.query({
    name: "analytics_delete_expired",
    text: `delete from analytics.click_event e
           using (select w.id, coalesce(p.days, $3::int) as days
                  from "Workspace" w left join unnest($1::text[], $2::int[]) as p(id, days) on p.id = w.plan) r
           where e.workspace_id = r.id and e.at < $4::timestamptz - make_interval(days => r.days)`,
    values: [planIds, days, fallbackDays, now],
  });
  return rowCount ?? 0;
}

/** Deletes the events of workspaces that no longer exist. */
export async function deleteOrphanEvents(q: Queryable): Promise<number> {
  const { rowCount } = await q.query({
    name: "analytics_delete_orphans",
    text: `delete from analytics.click_event e where not exists (select 1 from "Workspace" w where w.id = e.workspace_id)`,
  });
  return rowCount ?? 0;
}

/** Forgets the rollups (every table) older than each workspace plan's retention window. */
export async function deleteRollupsBefore(
  q: Queryable,
  workspaceRetention: { planIds: string[]; days: number[]; fallbackDays: number },
  now: Date,
): Promise<void> {
  // a destination's URL goes with the last day that names it
  const dayColumns = { click_day: "day", click_day_link: "day", click_day_destination: "day", click_destination: "last_day" };
  for (const [table, day] of Object.entries(dayColumns)) {
    await q.query({
      name: `analytics_rollup_retention_${table}`,
      text: `delete from analytics.${table} r
           using (select w.id, coalesce(p.days, $3::int) as days
                  from "Workspace" w left join unnest($1::text[], $2::int[]) as p(id, days) on p.id = w.plan) k
           where r.workspace_id = k.id and r.${day} < ($4::timestamptz - make_interval(days => k.days))::date`,
      values: [workspaceRetention.planIds, workspaceRetention.days, workspaceRetention.fallbackDays, now],
    });
  }
  await q.query({
    name: "analytics_rollup_done_retention",
    text: `delete from analytics.click_day_done where day < ($1::timestamptz - interval '4000 days')::date`,
    values: [now],
  });
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
