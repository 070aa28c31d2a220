import type pg from "pg";
import { FILTER_DIMS, filterValueSql } from "./rollup-dims.ts";
import type { RollupFilter } from "./rollup-sql.ts";
import type { Queryable } from "./sql.ts";

// The daily rollups per link and filter value (analytics.click_day_link; see its migration), for
// the reports that group by link (links, tags, UTM values) under one filter. Built in the same
// transaction as the day's analytics.click_day rows (buildRollupDay).

// one row per event and filter dimension, counted per visitor first (a hash aggregate), then per link
const BUILD_SQL = `
  insert into analytics.click_day_link (workspace_id, day, bot, fdim, fvalue, link_id, clicks, visitors)
  select workspace_id, date '1970-01-01' + $1::int, bot, fdim, fvalue, link_id, sum(clicks)::int, count(*)::int
  from (
    select workspace_id, bot, x.fdim, x.fvalue, link_id, count(*) as clicks
    from analytics.click_event
    cross join lateral (values ${FILTER_DIMS.map((d) => `('${d}', ${filterValueSql(d)})`).join(", ")}) as x(fdim, fvalue)
    where at >= (date '1970-01-01' + $1::int)::timestamp at time zone 'UTC'
      and at < (date '1970-01-01' + $1::int + 1)::timestamp at time zone 'UTC'
    group by workspace_id, bot, x.fdim, x.fvalue, link_id, visitor
  ) v
  group by workspace_id, bot, fdim, fvalue, link_id`;

/** (Re)builds one UTC day's per-link rows, inside the caller's transaction. */
export async function buildLinkDay(client: pg.PoolClient, day: number): Promise<number> {
  await client.query({
    name: "analytics_link_day_clear",
    text: `delete from analytics.click_day_link where day = date '1970-01-01' + $1::int`,
    values: [day],
  });
  const { rowCount } = await client.query({ name: "analytics_link_day_build", text: BUILD_SQL, values: [day] });
  return rowCount ?? 0;
}

/** Forgets per-link rows older than the workspace plan's retention window (see deleteRollupsBefore). */
export async function deleteLinkDaysBefore(
  q: Queryable,
  workspaceRetention: { planIds: string[]; days: number[]; fallbackDays: number },
  now: Date,
): Promise<void> {
  await q.query({
    name: "analytics_link_day_retention",
    text: `delete from analytics.click_day_link r
           using (select w.id, coalesce(p.days, $3::int) as days
                  from "Workspace" w left join unnest($1::text[], $2::int[]) as p(id, days) on p.id = w.plan) k
           where r.workspace_id = k.id and r.day < ($4::timestamptz - make_interval(days => k.days))::date`,
    values: [workspaceRetention.planIds, workspaceRetention.days, workspaceRetention.fallbackDays, now],
  });
}

export type LinkGrouping = "link" | { tags: true } | { linkValue: string };

/**
 * How rows with a link id column are grouped: per link, or by what the links are now (their tags,
 * a link with two counting for both; or `linkValue`, an SQL expression over "Link" l).
 */
export function linkGroupingSql(by: LinkGrouping, linkId: string): { join: string; keys: string[] } {
  if (by === "link") return { join: "", keys: [linkId] };
  if ("tags" in by)
    return { join: `join "LinkTag" lt on lt."linkId" = ${linkId} join "Tag" t on t.id = lt."tagId"`, keys: ["t.name", "t.color"] };
  return { join: `left join "Link" l on l.id = ${linkId}`, keys: [by.linkValue] };
}

/** The bot mode as a condition on the rows' bot column ('' for include). */
export const botSql = (bots: "exclude" | "include" | "only", column = "bot") =>
  bots === "exclude" ? `and not ${column}` : bots === "only" ? `and ${column}` : "";

export type LinkGroupRow = { key: (string | number | null)[]; clicks: number; visitors: number };

/** Runs a grouped read built by linkGroupingSql and returns its rows as keys and figures. */
export async function readLinkGroups(q: Queryable, keys: string[], sql: (select: string, groupBy: string) => string, values: unknown[]) {
  const select = `${keys.map((k, i) => `${k} as k${i}`).join(", ")}, sum(r.clicks)::int as clicks, sum(r.visitors)::int as visitors`;
  const { rows } = await q.query<Record<string, unknown> & { clicks: number; visitors: number }>(sql(select, keys.join(", ")), values);
  return rows.map((r): LinkGroupRow => ({
    key: keys.map((_, i) => r[`k${i}`] as string | number | null),
    clicks: r.clicks,
    visitors: r.visitors,
  }));
}

/** The days' rows under one filter, grouped as `by` says. Visitors are each link's, summed. */
export async function readLinkDays(
  q: Queryable,
  workspaceId: number,
  days: number[],
  bots: "exclude" | "include" | "only",
  filter: NonNullable<RollupFilter>,
  by: LinkGrouping,
): Promise<LinkGroupRow[]> {
  if (!days.length) return [];
  const { join, keys } = linkGroupingSql(by, "r.link_id");
  return readLinkGroups(
    q,
    keys,
    (select, groupBy) =>
      `select ${select} from analytics.click_day_link r ${join}
       where r.workspace_id = $1 and r.fdim = $2 and r.fvalue = $3
         and r.day = any(select date '1970-01-01' + d from unnest($4::int[]) as d) ${botSql(bots, "r.bot")}
       group by ${groupBy}`,
    [workspaceId, filter.dim, filter.value, days],
  );
}
