import type pg from "pg";
import type { BotMode, ClickQuery, GroupRow, TopGroup } from "../model.ts";
import { CASELESS_FILTERS, LINK_SETS, type DimFilter, type LinkDim, type LinkSetFilter, type RollupDim } from "../store/dimensions.ts";
import type { RollupRow } from "../store/day-rollup-read.ts";
import { named } from "../store/destination-rollup.ts";
import { decoded } from "../store/execute.ts";
import { withoutCity } from "../store/link-day-rollup-read.ts";
import { readLinkGroups, type LinkGrouping } from "../store/link-groups.ts";
import type { RollupPlan } from "../store/plan.ts";
import { Params } from "../store/sql-params.ts";
import type { ClickHouseClient } from "./client.ts";

// Reading ClickHouse's daily rollups (click_day, click_day_link, click_day_destination:
// clickhouse/rollup-build.ts) for the built days of a plan, the same rows PostgreSQL's readers read
// (store/day-rollup-read.ts, store/link-day-rollup-read.ts, store/destination-rollup.ts) and added
// up the same way. Each day is read from its current
// build only (`builds`: the plan's days' builds). What the links are now stays PostgreSQL's: a
// link, folder or tag filter's ids are read there, and per-link figures are grouped there
// (store/link-groups.ts).

type Values = Record<string, unknown>;
type ValueRow = { value: string; clicks: number; visitors: number };

const bots = (b: BotMode) => (b === "exclude" ? "AND NOT bot" : b === "only" ? "AND bot" : "");
// Totals read the device rows (store/link-day-rollup-read.ts TOTAL_DIM says why)
const TOTAL_DIM: LinkDim = "device";

export class ClickHouseRollupReader {
  constructor(
    private ch: ClickHouseClient,
    private pool: pg.Pool,
    /** the build to read for each built day */
    private builds: Map<number, bigint>,
  ) {}

  private async rows<T>(query: string, params: Values): Promise<T[]> {
    return (await this.ch.query({ query, query_params: params, format: "JSONEachRow" })).json<T>();
  }

  /** The condition naming one workspace's rows of the plan's days (their current builds), and its parameters. */
  private days(q: ClickQuery, plan: RollupPlan): { sql: string; params: Values } {
    // build ids are microseconds since 1970: exact as numbers until the year 2255
    const builds = plan.days.map((d) => this.builds.get(d)).filter((b): b is bigint => !!b);
    return {
      sql: `workspace_id = {ws:Int32} AND day >= addDays(toDate('1970-01-01'), {first:Int32}) AND day <= addDays(toDate('1970-01-01'), {last:Int32})
            AND build IN {builds:Array(UInt64)} ${bots(q.filters.bots)}`,
      params: { ws: q.workspaceId, first: plan.days[0], last: plan.days[plan.days.length - 1], builds: [...new Set(builds)].map(Number) },
    };
  }

  /** click_day rows of one dimension under one filter: per value, in all or per day. */
  private async dayRows(q: ClickQuery, plan: RollupPlan, dim: RollupDim, filter: DimFilter | null, perDay: boolean) {
    const w = this.days(q, plan);
    const found = await this.rows<Omit<RollupRow, "day"> & { d: number }>(
      `SELECT ${perDay ? "toInt32(day)" : "0"} AS d, value, toUInt32(sum(clicks)) AS clicks, toUInt32(sum(visitors)) AS visitors
       FROM click_day WHERE ${w.sql} AND fdim = {fdim:String} AND fvalue = {fvalue:String} AND dim = {dim:String}
       GROUP BY d, value`,
      { ...w.params, fdim: filter?.dim ?? "", fvalue: filter?.value ?? "", dim },
    );
    return found.map((r) => ({ day: Number(r.d), value: r.value, clicks: Number(r.clicks), visitors: Number(r.visitors) }));
  }

  /** The link filter's links now (PostgreSQL). */
  private async linkIds(workspaceId: number, f: LinkSetFilter): Promise<number[]> {
    const p = new Params();
    const sql = (LINK_SETS[f.links].ids as (v: unknown, p: Params, ws: string) => string)(f.value, p, p.add(workspaceId));
    const { rows } = await this.pool.query<{ id: number }>(`select distinct x.id from (${sql}) as x(id)`, p.values);
    return rows.map((r) => r.id);
  }

  /** click_day_link rows of one dimension (`where` narrowing them), summed by `by` ("day", "link_id", "fvalue"). */
  private async linkRows(q: ClickQuery, plan: RollupPlan, dim: LinkDim, where: string, params: Values, by: string) {
    const w = this.days(q, plan);
    const found = await this.rows<{ k: string | number; clicks: number; visitors: number }>(
      `SELECT ${by === "day" ? "toInt32(day)" : by} AS k, toUInt32(sum(clicks)) AS clicks, toUInt32(sum(visitors)) AS visitors
       FROM click_day_link WHERE ${w.sql} AND fdim = {fdim:String} ${where} GROUP BY k`,
      { ...w.params, ...params, fdim: dim },
    );
    return found.map((r) => ({ k: r.k, clicks: Number(r.clicks), visitors: Number(r.visitors) }));
  }

  /** Per-link figures grouped as `by` says, in PostgreSQL (what the links are now). */
  private group(by: LinkGrouping, perLink: { k: string | number; clicks: number; visitors: number }[]): Promise<GroupRow[]> {
    return readLinkGroups(this.pool, by, `select * from unnest($1::int[], $2::int[], $3::int[]) as t(link_id, clicks, visitors)`, [
      perLink.map((r) => Number(r.k)),
      perLink.map((r) => r.clicks),
      perLink.map((r) => r.visitors),
    ]);
  }

  async totals(q: ClickQuery, plan: RollupPlan, perDay: boolean): Promise<RollupRow[]> {
    if (plan.read === "dim") return this.dayRows(q, plan, plan.dim, plan.filter, perDay);
    if (plan.read !== "link-set-totals") throw new Error(`a ${plan.read} plan has no totals`);
    const ids = await this.linkIds(q.workspaceId, plan.filter);
    if (!ids.length) return [];
    const found = await this.linkRows(q, plan, TOTAL_DIM, `AND link_id IN {ids:Array(Int32)}`, { ids }, perDay ? "day" : "0");
    return found.map((r) => ({ day: Number(r.k), value: "", clicks: r.clicks, visitors: r.visitors }));
  }

  async groups(q: ClickQuery, group: TopGroup, plan: RollupPlan): Promise<GroupRow[]> {
    switch (plan.read) {
      case "dim":
        return decoded(group, await this.dayRows(q, plan, plan.dim, plan.filter, false));
      case "links-now": {
        const perLink = await this.dayRows(q, plan, "link", null, false);
        return this.group(
          plan.by,
          perLink.map((r) => ({ k: r.value, clicks: r.clicks, visitors: r.visitors })),
        );
      }
      case "filter-links":
        return this.group(
          plan.by,
          await this.linkRows(q, plan, plan.filter.dim, `AND fvalue = {fv:String}`, { fv: plan.filter.value }, "link_id"),
        );
      case "link-set-groups": {
        const ids = await this.linkIds(q.workspaceId, plan.filter);
        if (!ids.length) return [];
        return this.group(plan.by, await this.linkRows(q, plan, TOTAL_DIM, `AND link_id IN {ids:Array(Int32)}`, { ids }, "link_id"));
      }
      case "link-set-values":
        return decoded(group, await this.linkSetValues(q, plan, plan.filter, plan.dim));
      case "filter-destinations":
        return decoded(group, await this.filterDestinations(q, plan, plan.filter));
      case "link-set-totals":
        throw new Error("a totals plan has no groups");
    }
  }

  /** Destinations under one filter, named by their URLs (store/destination-rollup.ts readFilterDestinations). */
  private async filterDestinations(q: ClickQuery, plan: RollupPlan, f: DimFilter): Promise<ValueRow[]> {
    const w = this.days(q, plan);
    // the workspace's URLs: one row per destination it has had (within its retention)
    const found = await this.rows<{ value: string | null; clicks: number; visitors: number }>(
      `SELECT n.url AS value, r.clicks AS clicks, r.visitors AS visitors
       FROM (SELECT dest, toUInt32(sum(clicks)) AS clicks, toUInt32(sum(visitors)) AS visitors FROM click_day_destination
             WHERE ${w.sql} AND fdim = {fdim:String} AND fvalue = {fvalue:String} GROUP BY dest) r
       LEFT JOIN (SELECT dest, argMax(url, until) AS url FROM click_destination WHERE workspace_id = {ws:Int32} GROUP BY dest) n
       ON n.dest = r.dest
       SETTINGS join_use_nulls = 1`,
      { ...w.params, fdim: f.dim, fvalue: f.value },
    );
    return found.map((r) => ({ value: named(r.value), clicks: Number(r.clicks), visitors: Number(r.visitors) }));
  }

  /** The links' figures per value of a dimension (store/link-day-rollup-read.ts readLinkSetValues). */
  private async linkSetValues(q: ClickQuery, plan: RollupPlan, f: LinkSetFilter, dim: LinkDim): Promise<ValueRow[]> {
    const ids = await this.linkIds(q.workspaceId, f);
    if (!ids.length) return [];
    const values = async (d: LinkDim) =>
      (await this.linkRows(q, plan, d, `AND link_id IN {ids:Array(Int32)}`, { ids }, "fvalue")).map((r) => ({
        value: String(r.k),
        clicks: r.clicks,
        visitors: r.visitors,
      }));
    if (dim === "city") {
      const [cities, countries] = await Promise.all([values("city"), values("country")]);
      return [...cities, ...withoutCity(cities, countries)];
    }
    const found = await values(dim);
    if (!(CASELESS_FILTERS as LinkDim[]).includes(dim)) return found;
    // the per-link rows keep browser and OS names lower-cased; the day rows as the events spell them
    const w = this.days(q, plan);
    const spelled = await this.rows<{ value: string }>(
      `SELECT DISTINCT value FROM click_day WHERE ${w.sql} AND fdim = '' AND fvalue = '' AND dim = {dim:String}`,
      { ...w.params, dim },
    );
    const names = new Map(spelled.map((r) => [r.value.toLowerCase(), r.value]));
    return found.map((r) => ({ ...r, value: names.get(r.value) ?? r.value }));
  }
}
