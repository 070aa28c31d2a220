import type { BotMode, GroupRow } from "../model.ts";
import type { DimFilter, LinkGroup, RollupDim } from "./dimensions.ts";
import { readLinkGroups, readLinkGroupsAll } from "./link-groups.ts";
import { botSql } from "./sql-params.ts";
import type { Queryable } from "../../db/queryable.ts";

// Reading the day rollups (analytics.click_day; store/rollup-build.ts builds them) over a set of
// built UTC days.

export type RollupRow = { day: number; value: string; clicks: number; visitors: number };

/**
 * Rollup rows of one workspace and dimension over the built days, for the bot mode and at most one
 * filter: summed per value (perDay false) or per day and value (perDay true).
 */
export async function readRollup(
  q: Queryable,
  workspaceId: number,
  dim: RollupDim,
  days: number[],
  bots: BotMode,
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
 * readRollup of several dimensions at once (the panels of one page, or its totals and day series),
 * each row with its dimension.
 */
export async function readRollupDims(
  q: Queryable,
  workspaceId: number,
  dims: RollupDim[],
  days: number[],
  bots: BotMode,
  perDay: boolean,
  filter: DimFilter | null,
): Promise<(RollupRow & { dim: RollupDim })[]> {
  if (!days.length) return [];
  const { rows } = await q.query<RollupRow & { dim: RollupDim }>(
    `select dim, ${perDay ? "(day - date '1970-01-01')::int" : "0"} as day, value, sum(clicks)::int as clicks, sum(visitors)::int as visitors
     from analytics.click_day
     where workspace_id = $1 and fdim = $2 and fvalue = $3 and dim = any($4::text[])
       and day = any(select date '1970-01-01' + d from unnest($5::int[]) as d) ${botSql(bots)}
     group by 1, 2, 3`,
    [workspaceId, filter?.dim ?? "", filter?.value ?? "", dims, days],
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
  bots: BotMode,
  by: LinkGroup,
): Promise<GroupRow[]> {
  if (!days.length) return [];
  return readLinkGroups(q, by, perLinkSql(bots), [workspaceId, days]);
}

/** The unfiltered per-link rows over the days ($1 the workspace, $2 the days). */
const perLinkSql = (bots: BotMode) =>
  `select value::int as link_id, sum(clicks) as clicks, sum(visitors) as visitors from analytics.click_day
     where workspace_id = $1 and fdim = '' and fvalue = '' and dim = 'link'
       and day = any(select date '1970-01-01' + d from unnest($2::int[]) as d) ${botSql(bots)}
     group by value`;

/** readRollupByLink of several link groups in one statement (a page's tags and UTM panels), in the order of `groups`. */
export async function readRollupByLinkAll(
  q: Queryable,
  workspaceId: number,
  days: number[],
  bots: BotMode,
  groups: LinkGroup[],
): Promise<GroupRow[][]> {
  if (!days.length) return groups.map(() => []);
  return readLinkGroupsAll(q, groups, perLinkSql(bots), [workspaceId, days]);
}

/**
 * A dimension's values over the days as the events spell them, by their lower-cased spelling: the
 * per-link rows keep browser and OS names lower-cased (as filters compare them); the day rows keep
 * them as spelled.
 */
export async function spelledNames(db: Queryable, workspaceId: number, days: number[], dim: RollupDim): Promise<Map<string, string>> {
  const { rows } = await db.query<{ value: string }>(
    `select distinct value from analytics.click_day
     where workspace_id = $1 and fdim = '' and fvalue = '' and dim = $2
       and day = any(select date '1970-01-01' + d from unnest($3::int[]) as d)`,
    [workspaceId, dim, days],
  );
  return new Map(rows.map((r) => [r.value.toLowerCase(), r.value]));
}
