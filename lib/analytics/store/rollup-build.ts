import { inPgTransaction } from "../../db/pg-transaction.ts";
import type pg from "pg";
import { utcDay } from "../model.ts";
import { buildDestinationDay } from "./destination-rollup.ts";
import { CASELESS_FILTERS, dimValueSql, FILTER_DIMS, LINK_DIMS, linkValueSql, PAIR_DIMS, ROLLUP_DIMS } from "./dimensions.ts";
import { listMonthPartitions } from "./partitions.ts";
import type { Queryable } from "../../db/queryable.ts";

// Building the daily rollups of one UTC day (days are UTC day numbers: days since 1970-01-01), in
// one transaction: analytics.click_day (per workspace, day and bot flag: every dimension's values,
// over all clicks and among the clicks with each value of a filter dimension) and
// analytics.click_day_link (the same per link), analytics.click_day_destination (destinations under
// each filter value: store/destination-rollup.ts), and the day marked built (click_day_done). See
// their migrations; store/plan.ts says which reports read them.

// (), every dimension alone, every pair of PAIR_DIMS of which one at least is a filter (a pair of
// two others, such as city and language, would keep no row)
const filters = FILTER_DIMS as readonly string[];
export const GROUPING_SETS = [
  "()",
  ...ROLLUP_DIMS.map((d) => `(${d})`),
  ...PAIR_DIMS.flatMap((a, i) =>
    PAIR_DIMS.slice(i + 1)
      .filter((b) => filters.includes(a) || filters.includes(b))
      .map((b) => `(${a}, ${b})`),
  ),
].join(", ");

// One pass over the day's events groups them by every set above; each result row has one or two
// dimensions set (the values are never null, so null means "not in this set") and becomes the rows
// it answers: unfiltered (fdim '') for a single dimension or the total, "filtered by a" for b and
// "filtered by b" for a for a pair, and for a single dimension its filtered total and its own value
// under its own filter (country=US grouped by country is the US row); rows filtered by
// a dimension that is not in FILTER_DIMS are not kept. The outer sum only matters if two values
// differ in case alone. Rows are written in key order, so a report's rows of one day sit together.
const filterable = (d: string) => `${d} = any(array[${FILTER_DIMS.map((f) => `'${f}'`).join(", ")}])`;
const BUILD_DAY_SQL = `
  insert into analytics.click_day (workspace_id, day, bot, fdim, fvalue, dim, value, clicks, visitors)
  select g.workspace_id, date '1970-01-01' + $1::int, g.bot, x.fdim,
         case when x.fdim = any(array[${CASELESS_FILTERS.map((f) => `'${f}'`).join(", ")}]) then lower(x.fvalue) else x.fvalue end,
         x.dim, x.value, sum(g.clicks)::int, sum(g.visitors)::int
  from (
    select workspace_id, bot, count(*)::int as clicks, count(distinct visitor)::int as visitors,
           array_remove(array[${ROLLUP_DIMS.map((d) => `case when ${d} is not null then '${d}' end`).join(", ")}], null) as d,
           array_remove(array[${ROLLUP_DIMS.join(", ")}], null) as v
    from (select workspace_id, bot, visitor, ${ROLLUP_DIMS.map((d) => `${dimValueSql(d)} as ${d}`).join(", ")}
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
  return inPgTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock($1)", [ROLLUP_LOCK]);
    // the grouping sorts one day's events per set: in memory, not on disk
    await client.query("set local work_mem = '64MB'");
    await client.query({
      name: "analytics_rollup_clear",
      text: `delete from analytics.click_day where day = date '1970-01-01' + $1::int`,
      values: [day],
    });
    const { rowCount } = await client.query({ name: "analytics_rollup_build_pairs", text: BUILD_DAY_SQL, values: [day] });
    await buildLinkDay(client, day);
    await buildDestinationDay(client, day);
    await client.query({
      name: "analytics_rollup_done",
      text: `insert into analytics.click_day_done (day) values (date '1970-01-01' + $1::int) on conflict (day) do update set built_at = now()`,
      values: [day],
    });
    return rowCount ?? 0;
  });
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
  await inPgTransaction(pool, (client) => unmarkRollupDaysIn(client, days));
}

/** unmarkRollupDays inside the caller's transaction (the click flush's, lib/clicks/writer.ts). */
export async function unmarkRollupDaysIn(q: Queryable, days: number[]): Promise<void> {
  await q.query("select pg_advisory_xact_lock($1)", [ROLLUP_LOCK]);
  await q.query({
    name: "analytics_rollup_unmark",
    text: `delete from analytics.click_day_done where day = any(select date '1970-01-01' + d from unnest($1::int[]) as d)`,
    values: [days],
  });
}

// one row per event and dimension, counted per visitor first (a hash aggregate), then per link;
// written in index order, so the rows a report reads sit together
const BUILD_LINK_DAY_SQL = `
  insert into analytics.click_day_link (workspace_id, day, bot, fdim, fvalue, link_id, clicks, visitors)
  select workspace_id, date '1970-01-01' + $1::int, bot, fdim, fvalue, link_id, sum(clicks)::int, count(*)::int
  from (
    select workspace_id, bot, x.fdim, x.fvalue, link_id, count(*) as clicks
    from analytics.click_event
    cross join lateral (values ${LINK_DIMS.map((d) => `('${d}', ${linkValueSql(d)})`).join(", ")}) as x(fdim, fvalue)
    where at >= (date '1970-01-01' + $1::int)::timestamp at time zone 'UTC'
      and at < (date '1970-01-01' + $1::int + 1)::timestamp at time zone 'UTC'
      and x.fvalue is not null
    group by workspace_id, bot, x.fdim, x.fvalue, link_id, visitor
  ) v
  group by workspace_id, bot, fdim, fvalue, link_id
  order by workspace_id, fdim, link_id, fvalue, bot`;

/** (Re)builds one UTC day's per-link rows, inside the caller's transaction. */
export async function buildLinkDay(client: pg.PoolClient, day: number): Promise<number> {
  await client.query({
    name: "analytics_link_day_clear",
    text: `delete from analytics.click_day_link where day = date '1970-01-01' + $1::int`,
    values: [day],
  });
  const { rowCount } = await client.query({ name: "analytics_link_day_build", text: BUILD_LINK_DAY_SQL, values: [day] });
  return rowCount ?? 0;
}

/**
 * Complete UTC days not built yet, from the oldest partition's month (as buildPendingRollups
 * counts them) to yesterday: 0 while the hourly job keeps up (linkhop_analytics_rollup_lag_days).
 */
export async function pendingRollupDays(pool: pg.Pool, now = Date.now()): Promise<number> {
  const months = await listMonthPartitions(pool);
  if (!months.length) return 0;
  const first = utcDay(Date.UTC(months[0].year, months[0].month - 1, 1));
  const today = utcDay(now);
  return Math.max(0, today - first - (await builtDays(pool, first, today)).size);
}

/**
 * Builds every complete UTC day not built yet, from the oldest partition's month (nothing is older)
 * to yesterday. Returns the days built.
 */
export async function buildPendingRollups(pool: pg.Pool, now = Date.now(), maxDays = 2000): Promise<number> {
  const months = await listMonthPartitions(pool);
  if (!months.length) return 0;
  const first = utcDay(Date.UTC(months[0].year, months[0].month - 1, 1));
  const today = utcDay(now);
  const built = await builtDays(pool, first, today);
  let n = 0;
  for (let d = today - 1; d >= first && n < maxDays; d--) {
    if (built.has(d)) continue;
    await buildRollupDay(pool, d);
    n++;
  }
  // marks the new rows visible to all, so reports read the rollups' indexes alone (no table pages)
  if (n) await pool.query("vacuum (analyze) analytics.click_day, analytics.click_day_link, analytics.click_day_destination");
  return n;
}
