import type pg from "pg";
import type { BotMode } from "../model.ts";
import { FILTER_DIMS, filterValueSql, type DimFilter } from "./dimensions.ts";
import { botSql } from "./sql-params.ts";
import type { Queryable } from "../../db/queryable.ts";

// Top destinations under one dimension filter, from the daily rollups: analytics.click_day_destination
// (per workspace, UTC day, bot flag, filter dimension and value, and destination: the clicks and that
// day's unique visitors) and analytics.click_destination (each destination's URL, once per
// workspace). Built with the day's click_day rows (store/rollup-build.ts buildRollupDay), read when
// store/plan.ts says so. Destinations are long URLs, many per workspace: the rows name each by a
// fixed-width key (md5 of the URL as a uuid), never the URL. Every pair of a filter value and a
// destination of the day is kept (no top N), so a range's sums are exact; visitor keys change every
// UTC day, so its visitors are the sum of its days'.

/** A destination's key in the rollups ('' for an event without one, as click_day keeps it). */
export const DEST_KEY = `md5(coalesce(destination, ''))::uuid`;

const dayWhere = `at >= (date '1970-01-01' + $1::int)::timestamp at time zone 'UTC'
            and at < (date '1970-01-01' + $1::int + 1)::timestamp at time zone 'UTC'`;

// each event once per filter dimension, counted per visitor first (a hash aggregate), then per
// destination; written in index order, so the rows a report reads sit together
const BUILD_SQL = `
  insert into analytics.click_day_destination (workspace_id, day, bot, fdim, fvalue, dest, clicks, visitors)
  select workspace_id, date '1970-01-01' + $1::int, bot, fdim, fvalue, dest, sum(clicks)::int, count(*)::int
  from (
    select workspace_id, bot, x.fdim, x.fvalue, dest, count(*) as clicks
    from (select *, ${DEST_KEY} as dest from analytics.click_event where ${dayWhere}) e
    cross join lateral (values ${FILTER_DIMS.map((d) => `('${d}', ${filterValueSql(d)})`).join(", ")}) as x(fdim, fvalue)
    group by workspace_id, bot, x.fdim, x.fvalue, dest, visitor
  ) v
  group by workspace_id, bot, fdim, fvalue, dest
  order by workspace_id, fdim, fvalue, bot, dest`;

// the URLs of the day's keys; a rebuilt older day leaves last_day as it is
const NAMES_SQL = `
  insert into analytics.click_destination (workspace_id, dest, url, last_day)
  select distinct on (workspace_id, dest) workspace_id, dest, url, date '1970-01-01' + $1::int
  from (select workspace_id, ${DEST_KEY} as dest, coalesce(destination, '') as url from analytics.click_event where ${dayWhere}) e
  order by workspace_id, dest
  on conflict (workspace_id, dest) do update set last_day = excluded.last_day
  where analytics.click_destination.last_day < excluded.last_day`;

/** (Re)builds one UTC day's destination rows and their URLs, inside the caller's transaction. */
export async function buildDestinationDay(client: pg.PoolClient, day: number): Promise<number> {
  await client.query({
    name: "analytics_destination_day_clear",
    text: `delete from analytics.click_day_destination where day = date '1970-01-01' + $1::int`,
    values: [day],
  });
  await client.query({ name: "analytics_destination_names", text: NAMES_SQL, values: [day] });
  const { rowCount } = await client.query({ name: "analytics_destination_day_build", text: BUILD_SQL, values: [day] });
  return rowCount ?? 0;
}

export type DestinationRow = { value: string; clicks: number; visitors: number };

/** The destinations under one filter over the built days, summed per destination (value: its URL, '' for none). */
export async function readFilterDestinations(
  q: Queryable,
  workspaceId: number,
  days: number[],
  bots: BotMode,
  filter: DimFilter,
): Promise<DestinationRow[]> {
  if (!days.length) return [];
  const { rows } = await q.query<{ value: string | null; clicks: number; visitors: number }>(
    `select n.url as value, r.clicks, r.visitors
     from (select dest, sum(clicks)::int as clicks, sum(visitors)::int as visitors
           from analytics.click_day_destination
           where workspace_id = $1 and fdim = $2 and fvalue = $3
             and day = any(select date '1970-01-01' + d from unnest($4::int[]) as d) ${botSql(bots)}
           group by dest) r
     left join analytics.click_destination n on n.workspace_id = $1 and n.dest = r.dest`,
    [workspaceId, filter.dim, filter.value, days],
  );
  return rows.map((r) => ({ value: named(r.value), clicks: r.clicks, visitors: r.visitors }));
}

/** A key's URL; every key a built day names has one (written in the same build, forgotten after it). */
export function named(url: string | null): string {
  if (url === null) throw new Error("a destination key of the rollups has no URL (analytics.click_destination)");
  return url;
}
