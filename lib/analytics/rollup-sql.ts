import type pg from "pg";
import type { Queryable } from "./sql.ts";

// The statements of the daily rollups (analytics.click_day; see its migration), one named function
// each. Days are UTC day numbers (days since 1970-01-01).

export const ROLLUP_DIMS = ["total", "country", "city", "referrer", "device", "browser", "os", "link", "qr"] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];

/** (Re)builds one UTC day of every workspace in one transaction, and marks it built. */
export async function buildRollupDay(pool: pg.Pool, day: number): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    // one builder at a time across processes
    await client.query("select pg_advisory_xact_lock(72120419)");
    await client.query({
      name: "analytics_rollup_clear",
      text: `delete from analytics.click_day where day = date '1970-01-01' + $1::int`,
      values: [day],
    });
    const { rowCount } = await client.query({
      name: "analytics_rollup_build",
      text: `insert into analytics.click_day (workspace_id, day, bot, dim, value, clicks, visitors)
             select e.workspace_id, date '1970-01-01' + $1::int, e.bot, d.dim, d.value, count(*)::int, count(distinct e.visitor)::int
             from analytics.click_event e
             cross join lateral (values
               ('total', ''), ('country', coalesce(e.country, '')), ('city', coalesce(e.city, '') || E'\\t' || coalesce(e.country, '')),
               ('referrer', coalesce(e.referrer_host, '')), ('device', e.device), ('browser', coalesce(e.browser, '')),
               ('os', coalesce(e.os, '')), ('link', e.link_id::text), ('qr', e.qr::text)) as d(dim, value)
             where e.at >= (date '1970-01-01' + $1::int)::timestamp at time zone 'UTC'
               and e.at < (date '1970-01-01' + $1::int + 1)::timestamp at time zone 'UTC'
             group by e.workspace_id, e.bot, d.dim, d.value`,
      values: [day],
    });
    await client.query({
      name: "analytics_rollup_done",
      text: `insert into analytics.click_day_done (day) values (date '1970-01-01' + $1::int) on conflict (day) do update set built_at = now()`,
      values: [day],
    });
    await client.query("commit");
    return rowCount ?? 0;
  } catch (e) {
    await client.query("rollback").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** Built days in [fromDay, toDay). */
export async function builtDays(q: Queryable, fromDay: number, toDay: number): Promise<Set<number>> {
  const { rows } = await q.query<{ d: number }>({
    name: "analytics_rollup_built_days",
    text: `select (day - date '1970-01-01')::int as d from analytics.click_day_done
           where day >= date '1970-01-01' + $1::int and day < date '1970-01-01' + $2::int`,
    values: [fromDay, toDay],
  });
  return new Set(rows.map((r) => r.d));
}

/** Late events arrived for these days: they are built again by the next job run. */
export async function unmarkRollupDays(q: Queryable, days: number[]): Promise<void> {
  await q.query({
    name: "analytics_rollup_unmark",
    text: `delete from analytics.click_day_done where day = any(select date '1970-01-01' + d from unnest($1::int[]) as d)`,
    values: [days],
  });
}

/** Forgets rollups older than `beforeDay` (retention; the events themselves go their own way). */
export async function deleteRollupsBefore(
  q: Queryable,
  workspaceRetention: { planIds: string[]; days: number[]; fallbackDays: number },
  now: Date,
): Promise<void> {
  await q.query({
    name: "analytics_rollup_retention",
    text: `delete from analytics.click_day r
           using (select w.id, coalesce(p.days, $3::int) as days
                  from "Workspace" w left join unnest($1::text[], $2::int[]) as p(id, days) on p.id = w.plan) k
           where r.workspace_id = k.id and r.day < ($4::timestamptz - make_interval(days => k.days))::date`,
    values: [workspaceRetention.planIds, workspaceRetention.days, workspaceRetention.fallbackDays, now],
  });
  await q.query({
    name: "analytics_rollup_done_retention",
    text: `delete from analytics.click_day_done where day < ($1::timestamptz - interval '4000 days')::date`,
    values: [now],
  });
}

export type RollupRow = { day: number; value: string; clicks: number; visitors: number };

/**
 * Rollup rows of one workspace and dimension over the built days [fromDay, toDay), for the bot
 * mode: summed per value (perDay false) or per day and value (perDay true).
 */
export async function readRollup(
  q: Queryable,
  workspaceId: number,
  dim: RollupDim,
  days: number[],
  bots: "exclude" | "include" | "only",
  perDay: boolean,
): Promise<RollupRow[]> {
  if (!days.length) return [];
  const bot = bots === "exclude" ? "and not bot" : bots === "only" ? "and bot" : "";
  const { rows } = await q.query<RollupRow>(
    `select ${perDay ? "(day - date '1970-01-01')::int" : "0"} as day, value, sum(clicks)::int as clicks, sum(visitors)::int as visitors
     from analytics.click_day
     where workspace_id = $1 and dim = $2 and day = any(select date '1970-01-01' + d from unnest($3::int[]) as d) ${bot}
     group by 1, 2`,
    [workspaceId, dim, days],
  );
  return rows;
}
