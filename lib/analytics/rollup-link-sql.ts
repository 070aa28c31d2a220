import type pg from "pg";
import { FILTER_DIMS, filterValueSql } from "./rollup-dims.ts";
import type { RollupFilter } from "./rollup-sql.ts";
import type { Queryable } from "./sql.ts";

// The daily rollups per link and filter value (analytics.click_day_link; see its migration), for
// the reports that group by link (links, tags, UTM values) under one filter. Built in the same
// transaction as the day's analytics.click_day rows (buildRollupDay).

// one row per event and filter dimension, counted per visitor first (a hash aggregate), then per
// link; written in key order, so a report's rows of one day sit together on a few pages
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
  group by workspace_id, bot, fdim, fvalue, link_id
  order by workspace_id, fdim, fvalue, bot, link_id`;

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

export type LinkGrouping = "link" | { tags: true } | { linkValue: string };

/** The bot mode as a condition on the rows' bot column ('' for include). */
export const botSql = (bots: "exclude" | "include" | "only", column = "bot") =>
  bots === "exclude" ? `and not ${column}` : bots === "only" ? `and ${column}` : "";

export type LinkGroupRow = { key: (string | number | null)[]; clicks: number; visitors: number };

/**
 * Figures per link (`perLink` selects link_id, clicks, visitors, one row per link), grouped as `by`
 * says: per link, or by what the links are now (their tags, a link with two counting for both; or
 * `linkValue`, an SQL expression over "Link" l). Summed per link first, so the join reads each
 * link once however many days the range has.
 */
export async function readLinkGroups(q: Queryable, by: LinkGrouping, perLink: string, values: unknown[]): Promise<LinkGroupRow[]> {
  const join =
    by === "link"
      ? ""
      : "tags" in by
        ? `join "LinkTag" lt on lt."linkId" = p.link_id join "Tag" t on t.id = lt."tagId"`
        : `left join "Link" l on l.id = p.link_id`;
  const keys = by === "link" ? ["p.link_id"] : "tags" in by ? ["t.name", "t.color"] : [by.linkValue];
  const { rows } = await q.query<Record<string, unknown> & { clicks: number; visitors: number }>(
    `with per_link as (${perLink})
     select ${keys.map((k, i) => `${k} as k${i}`).join(", ")}, sum(p.clicks)::int as clicks, sum(p.visitors)::int as visitors
     from per_link p ${join} group by ${keys.join(", ")}`,
    values,
  );
  return rows.map((r) => ({ key: keys.map((_, i) => r[`k${i}`] as string | number | null), clicks: r.clicks, visitors: r.visitors }));
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
  return readLinkGroups(
    q,
    by,
    `select link_id, sum(clicks) as clicks, sum(visitors) as visitors from analytics.click_day_link
     where workspace_id = $1 and fdim = $2 and fvalue = $3
       and day = any(select date '1970-01-01' + d from unnest($4::int[]) as d) ${botSql(bots)}
     group by link_id`,
    [workspaceId, filter.dim, filter.value, days],
  );
}
