import type pg from "pg";
import { CASELESS_FILTERS, DIM_VALUE, FILTER_DIMS, PAIR_DIMS, type FilterDim, type RollupDim } from "./rollup-dims.ts";
import { botSql, buildLinkDay, readLinkGroups, type LinkGroupRow, type LinkGrouping } from "./rollup-link-sql.ts";
import type { ClickFilters, LinkSetKey } from "./query-sql.ts";
import type { Queryable } from "./sql.ts";

// The statements of the daily rollups (analytics.click_day; see its migrations), one named function
// each. Days are UTC day numbers (days since 1970-01-01).

const DIMS = Object.keys(DIM_VALUE) as Exclude<RollupDim, "total">[];
// (), every dimension alone, every pair of PAIR_DIMS
const GROUPING_SETS = [
  "()",
  ...DIMS.map((d) => `(${d})`),
  ...PAIR_DIMS.flatMap((a, i) => PAIR_DIMS.slice(i + 1).map((b) => `(${a}, ${b})`)),
].join(", ");

// One pass over the day's events groups them by every set above; each result row has one or two
// dimensions set (the values are never null, so null means "not in this set") and becomes the rows
// it answers: unfiltered (fdim '') for a single dimension or the total, "filtered by a" for b and
// "filtered by b" for a for a pair, and for a single dimension its filtered total and its own value
// under its own filter (country=US grouped by country is the US row); rows filtered by
// a dimension that is not in FILTER_DIMS are not kept. The outer sum only matters if two values
// differ in case alone. Rows are written in key order, so a report's rows of one day sit together.
const filterable = (d: string) => `${d} = any(array[${FILTER_DIMS.map((f) => `'${f}'`).join(", ")}])`;
const BUILD_SQL = `
  insert into analytics.click_day (workspace_id, day, bot, fdim, fvalue, dim, value, clicks, visitors)
  select g.workspace_id, date '1970-01-01' + $1::int, g.bot, x.fdim,
         case when x.fdim = any(array[${CASELESS_FILTERS.map((f) => `'${f}'`).join(", ")}]) then lower(x.fvalue) else x.fvalue end,
         x.dim, x.value, sum(g.clicks)::int, sum(g.visitors)::int
  from (
    select workspace_id, bot, count(*)::int as clicks, count(distinct visitor)::int as visitors,
           array_remove(array[${DIMS.map((d) => `case when ${d} is not null then '${d}' end`).join(", ")}], null) as d,
           array_remove(array[${DIMS.join(", ")}], null) as v
    from (select workspace_id, bot, visitor, ${DIMS.map((d) => `${DIM_VALUE[d]} as ${d}`).join(", ")}
          from analytics.click_event
          where at >= (date '1970-01-01' + $1::int)::timestamp at time zone 'UTC'
            and at < (date '1970-01-01' + $1::int + 1)::timestamp at time zone 'UTC') e
    group by workspace_id, bot, grouping sets (${GROUPING_SETS})
  ) g
  cross join lateral (values
    ('', '', coalesce(g.d[1], 'total'), coalesce(g.v[1], ''), cardinality(g.d) <= 1),
    (g.d[1], g.v[1], coalesce(g.d[2], 'total'), coalesce(g.v[2], ''), cardinality(g.d) >= 1 and ${filterable("g.d[1]")}),
    (g.d[2], g.v[2], g.d[1], g.v[1], cardinality(g.d) = 2 and ${filterable("g.d[2]")}),
    (g.d[1], g.v[1], g.d[1], g.v[1], cardinality(g.d) = 1 and ${filterable("g.d[1]")})
  ) as x(fdim, fvalue, dim, value, keep)
  where x.keep
  group by 1, 2, 3, 4, 5, 6, 7
  order by 1, 4, 5, 6, 3, 7`;

/**
 * One builder at a time across processes; and a day's late mark waits for a build in progress
 * (unmarkRollupDays), so it always comes after that build's "done".
 */
export const ROLLUP_LOCK = 72120419;

/** (Re)builds one UTC day of every workspace in one transaction, and marks it built. */
export async function buildRollupDay(pool: pg.Pool, day: number): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [ROLLUP_LOCK]);
    // the grouping sorts one day's events per set: in memory, not on disk
    await client.query("set local work_mem = '64MB'");
    await client.query({
      name: "analytics_rollup_clear",
      text: `delete from analytics.click_day where day = date '1970-01-01' + $1::int`,
      values: [day],
    });
    const { rowCount } = await client.query({ name: "analytics_rollup_build_pairs", text: BUILD_SQL, values: [day] });
    await buildLinkDay(client, day);
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

/**
 * Late events arrived for these days: they are built again by the next job run. A build of one of
 * them may be running, having read the day's events before these were written: it would mark the
 * day built after a plain delete, and the late events would never be counted. Taking the builders'
 * lock first makes this delete wait for that build's commit.
 */
export async function unmarkRollupDays(pool: pg.Pool, days: number[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock($1)", [ROLLUP_LOCK]);
    await client.query({
      name: "analytics_rollup_unmark",
      text: `delete from analytics.click_day_done where day = any(select date '1970-01-01' + d from unnest($1::int[]) as d)`,
      values: [days],
    });
    await client.query("commit");
  } catch (e) {
    await client.query("rollback").catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** Forgets the rollups (both tables) older than each workspace plan's retention window. */
export async function deleteRollupsBefore(
  q: Queryable,
  workspaceRetention: { planIds: string[]; days: number[]; fallbackDays: number },
  now: Date,
): Promise<void> {
  for (const table of ["click_day", "click_day_link"]) {
    await q.query({
      name: `analytics_rollup_retention_${table}`,
      text: `delete from analytics.${table} r
           using (select w.id, coalesce(p.days, $3::int) as days
                  from "Workspace" w left join unnest($1::text[], $2::int[]) as p(id, days) on p.id = w.plan) k
           where r.workspace_id = k.id and r.day < ($4::timestamptz - make_interval(days => k.days))::date`,
      values: [workspaceRetention.planIds, workspaceRetention.days, workspaceRetention.fallbackDays, now],
    });
  }
  await q.query({
    name: "analytics_rollup_done_retention",
    text: `delete from analytics.click_day_done where day < ($1::timestamptz - interval '4000 days')::date`,
    values: [now],
  });
}

export type RollupRow = { day: number; value: string; clicks: number; visitors: number };
/** A filter on one dimension, with the value as the rollups keep it. */
export type DimFilter = { dim: FilterDim; value: string };
/** A link, folder or tag filter, as the query has it. */
export type LinkSetFilter = { [K in LinkSetKey]: { links: K; value: NonNullable<ClickFilters[K]> } }[LinkSetKey];
/** The one filter a report read from the rollups may have (null: none). */
export type RollupFilter = DimFilter | LinkSetFilter | null;

/**
 * Rollup rows of one workspace and dimension over the built days, for the bot mode and at most one
 * filter: summed per value (perDay false) or per day and value (perDay true).
 */
export async function readRollup(
  q: Queryable,
  workspaceId: number,
  dim: RollupDim,
  days: number[],
  bots: "exclude" | "include" | "only",
  perDay: boolean,
  filter: DimFilter | null = null,
): Promise<RollupRow[]> {
  if (!days.length) return [];
  const { rows } = await q.query<RollupRow>(
    `select ${perDay ? "(day - date '1970-01-01')::int" : "0"} as day, value, sum(clicks)::int as clicks, sum(visitors)::int as visitors
     from analytics.click_day
     where workspace_id = $1 and fdim = $2 and fvalue = $3 and dim = $4
       and day = any(select date '1970-01-01' + d from unnest($5::int[]) as d) ${botSql(bots)}
     group by 1, 2`,
    [workspaceId, filter?.dim ?? "", filter?.value ?? "", dim, days],
  );
  return rows;
}

/**
 * The unfiltered per-link rows over the built days, grouped by what the links are now (their tags
 * or a value of their URL; see readLinkGroups). Visitors are each link's, summed.
 */
export async function readRollupByLink(
  q: Queryable,
  workspaceId: number,
  days: number[],
  bots: "exclude" | "include" | "only",
  by: Exclude<LinkGrouping, "link">,
): Promise<LinkGroupRow[]> {
  if (!days.length) return [];
  return readLinkGroups(
    q,
    by,
    `select value::int as link_id, sum(clicks) as clicks, sum(visitors) as visitors from analytics.click_day
     where workspace_id = $1 and fdim = '' and fvalue = '' and dim = 'link'
       and day = any(select date '1970-01-01' + d from unnest($2::int[]) as d) ${botSql(bots)}
     group by value`,
    [workspaceId, days],
  );
}
