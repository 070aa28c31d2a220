import type pg from "pg";
import { Params } from "./query-sql.ts";
import { LINK_DIMS, linkValueSql, type LinkDim } from "./rollup-dims.ts";
import type { DimFilter } from "./rollup-sql.ts";
import type { Queryable } from "./sql.ts";

// The daily rollups per link and dimension value (analytics.click_day_link; see its migrations),
// for the reports that group by link (links, tags, UTM values) under one filter and for the reports
// under a link, folder or tag filter (lib/analytics/rollup-link-set.ts). Built in the same
// transaction as the day's analytics.click_day rows (buildRollupDay). The index is link first, so a
// set of links reads its own rows; a filter value across every link is read through PostgreSQL's
// skip scan over the links.

// one row per event and dimension, counted per visitor first (a hash aggregate), then per link;
// written in index order, so the rows a report reads sit together
const BUILD_SQL = `
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

/** The days as runs of consecutive days, [first, end). */
export function dayRuns(days: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const d of [...days].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && last[1] === d) last[1] = d + 1;
    else runs.push([d, d + 1]);
  }
  return runs;
}

/**
 * The per-link rows of one dimension over the days (`cols` of them, `where` narrowing them further),
 * one select per run of consecutive days: a day range the index reads in order, where a list of days
 * would be searched for once per link and day.
 */
export function linkRowsSql(
  p: Params,
  workspaceId: number,
  days: number[],
  bots: "exclude" | "include" | "only",
  dim: LinkDim,
  where: string,
  cols: string,
): string {
  const ws = p.add(workspaceId);
  const fdim = p.add(dim);
  return dayRuns(days)
    .map(
      ([first, end]) => `select ${cols} from analytics.click_day_link
         where workspace_id = ${ws} and fdim = ${fdim} ${where}
           and day >= date '1970-01-01' + ${p.add(first)}::int and day < date '1970-01-01' + ${p.add(end)}::int ${botSql(bots)}`,
    )
    .join(" union all ");
}

/** The days' rows under one filter, grouped as `by` says. Visitors are each link's, summed. */
export async function readLinkDays(
  q: Queryable,
  workspaceId: number,
  days: number[],
  bots: "exclude" | "include" | "only",
  filter: DimFilter,
  by: LinkGrouping,
): Promise<LinkGroupRow[]> {
  if (!days.length) return [];
  const p = new Params();
  const rows = linkRowsSql(p, workspaceId, days, bots, filter.dim, `and fvalue = ${p.add(filter.value)}`, "link_id, clicks, visitors");
  return readLinkGroups(
    q,
    by,
    `select link_id, sum(clicks) as clicks, sum(visitors) as visitors from (${rows}) r group by link_id`,
    p.values,
  );
}
