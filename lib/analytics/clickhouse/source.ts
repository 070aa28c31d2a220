import type pg from "pg";
import type {
  Bucket,
  ClickEvent,
  ClickQuery,
  ClickStore,
  ExportRow,
  GroupRow,
  StoreAnswer,
  StoreQuery,
  TopGroup,
  Totals,
} from "../model.ts";
import {
  DIMENSIONS,
  groupColumns,
  isLinkGroup,
  LINK_GROUPS,
  LINK_SETS,
  present,
  visitorsPerLink,
  WHERE_ORDER,
} from "../store/dimensions.ts";
import { answerWith, compareKeys, type StoreReaders } from "../store/execute.ts";
import { readLinkGroups } from "../store/link-groups.ts";
import { planSource, rollupWindow, type SourcePlan } from "../store/plan.ts";
import { Params } from "../store/sql-params.ts";
import type { PostgresClickStore } from "../store/click-store.ts";
import type { ClickHouseClient } from "./client.ts";
import { builtClickHouseDays } from "./rollup-build.ts";
import { ClickHouseRollupReader } from "./rollup-read.ts";
import { clickHouseTime } from "./sink.ts";

// Reports and exports answered from ClickHouse (CLICKHOUSE_URL set): the same questions
// (model.ts StoreQuery) and the same answers as the PostgreSQL store, read from ClickHouse's
// click_event (schema.ts) and its daily rollups (click_day, click_day_link: rollup-build.ts), as
// the same plan function chooses for PostgreSQL (store/plan.ts planSource, given ClickHouse's built
// days) and added up the same way (store/execute.ts answerWith). What the links are now (their folder and tags for a filter, their tags and UTM values for a group)
// is PostgreSQL's: the filter's link ids are read there first, and per-link figures are grouped
// there (the same statement as the rollups use, store/link-groups.ts). Writes and the visitor
// salts stay with PostgreSQL (the click flush commits there; sink.ts copies the events over).

type Where = { sql: string; params: Record<string, unknown> };

class ChParams {
  readonly values: Record<string, unknown> = {};
  private n = 0;
  add(value: unknown, type: string): string {
    const name = `p${++this.n}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}

const filterOf = (key: string) =>
  (Object.entries(DIMENSIONS) as [string, (typeof DIMENSIONS)[keyof typeof DIMENSIONS]][]).find(
    ([k, d]) => k === key && "filter" in d,
  )?.[1];

// visitors: unique visitor keys (they change every UTC day), or per link under a folder or tag filter
const measures = (q: ClickQuery) =>
  `toUInt32(count()) AS clicks, toUInt32(${visitorsPerLink(q.filters) ? "uniqExact(link_id, visitor)" : "uniqExact(visitor)"}) AS visitors`;

export class ClickHouseClickStore implements ClickStore {
  constructor(
    private ch: ClickHouseClient,
    /** PostgreSQL: the links now, the visitor salts, and where writes go */
    private pool: pg.Pool,
    private postgres: Pick<PostgresClickStore, "record" | "visitorSalt" | "pruneVisitorSalts">,
  ) {}

  record(batch: ClickEvent[]): Promise<void> {
    return this.postgres.record(batch);
  }

  visitorSalt(day: number, candidate: Buffer): Promise<Buffer> {
    return this.postgres.visitorSalt(day, candidate);
  }

  pruneVisitorSalts(keepFromDay: number): Promise<void> {
    return this.postgres.pruneVisitorSalts(keepFromDay);
  }

  /** The report's plan (store/plan.ts planSource over ClickHouse's built days), and each built day's build. */
  async plan(q: StoreQuery): Promise<{ plan: SourcePlan; builds: Map<number, bigint> }> {
    const window = rollupWindow(q);
    if (!window) return { plan: { source: "events" }, builds: new Map() };
    const builds = await builtClickHouseDays(this.ch, window.first, window.last);
    return { plan: planSource(q, new Set(builds.keys())), builds };
  }

  async query<Q extends StoreQuery>(q: Q): Promise<StoreAnswer<Q["kind"]>> {
    const { plan, builds } = await this.plan(q);
    const rolled = new ClickHouseRollupReader(this.ch, this.pool, builds);
    const readers: StoreReaders = {
      totals: async (cq) => this.totals(cq, await this.where(cq)),
      timeseries: async (cq, unit, timezone) => this.timeseries(cq, await this.where(cq), unit, timezone),
      top: async (cq, group, limit) => this.top(cq, await this.where(cq), group, limit),
      rolledTotals: (cq, p, perDay) => rolled.totals(cq, p, perDay),
      rolledGroups: (cq, group, p) => rolled.groups(cq, group, p),
    };
    return answerWith(readers, q, plan);
  }

  /** The query's conditions; a link, folder or tag filter becomes the ids of its links (read in PostgreSQL). */
  async where(q: ClickQuery): Promise<Where> {
    const p = new ChParams();
    const parts = [
      `workspace_id = ${p.add(q.workspaceId, "Int32")}`,
      `at >= ${p.add(clickHouseTime(q.start.getTime()), "DateTime64(3, 'UTC')")}`,
      `at < ${p.add(clickHouseTime(q.end.getTime()), "DateTime64(3, 'UTC')")}`,
    ];
    for (const key of WHERE_ORDER) {
      const value = q.filters[key];
      if (!present(value)) continue;
      if (key === "bots") {
        if (value === "exclude") parts.push("NOT bot");
        else if (value === "only") parts.push("bot");
      } else if (key === "linkId") parts.push(`link_id = ${p.add(value, "Int32")}`);
      else if (key in LINK_SETS)
        parts.push(`link_id IN ${p.add(await this.linkIds(q.workspaceId, key as keyof typeof LINK_SETS, value), "Array(Int32)")}`);
      else if (key === "qr") parts.push(`qr = ${p.add(value, "Bool")}`);
      else {
        const dim = filterOf(key);
        if (!dim || !("filter" in dim)) throw new Error(`no ClickHouse filter for ${key}`);
        const f = dim.filter as { column: string; caseless?: boolean; normalize?: (v: string) => string; none?: string };
        const v = String(value);
        if (f.none !== undefined && v === f.none) parts.push(`${f.column} IS NULL`);
        else if (f.caseless) parts.push(`lower(${f.column}) = lower(${p.add(v, "String")})`);
        else parts.push(`${f.column} = ${p.add(f.normalize ? f.normalize(v) : v, "String")}`);
      }
    }
    return { sql: `WHERE ${parts.join(" AND ")}`, params: p.values };
  }

  private async linkIds(workspaceId: number, key: keyof typeof LINK_SETS, value: unknown): Promise<number[]> {
    const p = new Params();
    const ws = p.add(workspaceId);
    const sql = (LINK_SETS[key].ids as (v: unknown, p: Params, ws: string) => string)(value, p, ws);
    const { rows } = await this.pool.query<{ id: number }>(`select distinct x.id from (${sql}) as x(id)`, p.values);
    return rows.map((r) => r.id);
  }

  private async rows<T>(query: string, params: Record<string, unknown>): Promise<T[]> {
    const rs = await this.ch.query({ query, query_params: params, format: "JSONEachRow" });
    return rs.json<T>();
  }

  private async totals(q: ClickQuery, w: Where): Promise<Totals> {
    const [row] = await this.rows<Totals>(`SELECT ${measures(q)} FROM click_event ${w.sql}`, w.params);
    return { clicks: Number(row?.clicks ?? 0), visitors: Number(row?.visitors ?? 0) };
  }

  /** Every bucket of the range (zeros included), as the PostgreSQL store answers: hours are consecutive, days follow the zone's calendar. */
  private async timeseries(q: ClickQuery, w: Where, unit: "hour" | "day", timezone: string): Promise<Bucket[]> {
    const p = { ...w.params, tz: timezone, s: clickHouseTime(q.start.getTime()), l: clickHouseTime(q.end.getTime() - 1) };
    const trunc = unit === "hour" ? "toStartOfHour" : "toStartOfDay";
    const series =
      unit === "hour"
        ? `range(toUInt32(toUnixTimestamp(toStartOfHour(toDateTime({s:DateTime64(3, 'UTC')}), {tz:String}))),
                 toUInt32(toUnixTimestamp(toDateTime({l:DateTime64(3, 'UTC')}))) + 1, 3600)`
        : `arrayMap(i -> toUInt32(toUnixTimestamp(toDateTime(toDate({s:DateTime64(3, 'UTC')}, {tz:String}) + i, {tz:String}))),
                    range(toUInt32(dateDiff('day', toDate({s:DateTime64(3, 'UTC')}, {tz:String}), toDate({l:DateTime64(3, 'UTC')}, {tz:String})) + 1)))`;
    const [counts, [buckets]] = await Promise.all([
      this.rows<{ b: number; clicks: number; visitors: number }>(
        `SELECT toUInt32(toUnixTimestamp(${trunc}(toDateTime(at), {tz:String}))) AS b, ${measures(q)}
         FROM click_event ${w.sql} GROUP BY b`,
        p,
      ),
      this.rows<{ s: number[] }>(`SELECT ${series} AS s`, p),
    ]);
    const byBucket = new Map(counts.map((c) => [Number(c.b), c]));
    return buckets.s.map((s) => {
      const c = byBucket.get(Number(s));
      return { start: new Date(Number(s) * 1000), clicks: Number(c?.clicks ?? 0), visitors: Number(c?.visitors ?? 0) };
    });
  }

  /** The `limit` largest groups, most clicks first (then most visitors, then by key, "none" last). */
  private async top(q: ClickQuery, w: Where, group: TopGroup, limit: number): Promise<GroupRow[]> {
    if (isLinkGroup(group)) {
      // per-link figures here, grouped by what the links are now in PostgreSQL
      const perLink = await this.rows<{ link_id: number; clicks: number; visitors: number }>(
        `SELECT link_id, toUInt32(count()) AS clicks, toUInt32(uniqExact(visitor)) AS visitors FROM click_event ${w.sql} GROUP BY link_id`,
        w.params,
      );
      const grouped = await readLinkGroups(
        this.pool,
        group,
        `select * from unnest($1::int[], $2::int[], $3::int[]) as t(link_id, clicks, visitors)`,
        [perLink.map((r) => Number(r.link_id)), perLink.map((r) => Number(r.clicks)), perLink.map((r) => Number(r.visitors))],
      );
      return grouped.sort((a, b) => b.clicks - a.clicks || b.visitors - a.visitors || compareKeys(a.key, b.key)).slice(0, limit);
    }
    const cols = groupColumns(group);
    const keys = cols.map((c, i) => `${c} AS k${i}`).join(", ");
    const order = cols.map((c) => `${c} ASC NULLS LAST`).join(", ");
    const rows = await this.rows<Record<string, unknown> & Totals>(
      `SELECT ${keys}, ${measures(q)} FROM click_event ${w.sql}
       GROUP BY ${cols.join(", ")} ORDER BY clicks DESC, visitors DESC, ${order} LIMIT ${Math.max(1, Math.floor(limit))}`,
      w.params,
    );
    return rows.map((r) => ({
      key: cols.map((_, i) => {
        const v = r[`k${i}`];
        return cols[i] === "link_id" ? Number(v) : (v as string | boolean | null);
      }),
      clicks: Number(r.clicks),
      visitors: Number(r.visitors),
    }));
  }

  /** The raw events of the query, oldest first, a page at a time (the rows stream from ClickHouse). */
  async *events(q: ClickQuery, pageSize = 2000): AsyncGenerator<ExportRow[]> {
    const w = await this.where(q);
    const rs = await this.ch.query({
      query: `SELECT toUnixTimestamp64Milli(at) AS at_ms, link_id, domain, target, country, city, referrer_host, referrer_url,
                     device, browser, os, bot, qr, destination, language
              FROM click_event ${w.sql} ORDER BY at`,
      query_params: w.params,
      format: "JSONEachRow",
    });
    let page: ExportRow[] = [];
    for await (const chunk of rs.stream<Record<string, unknown>>()) {
      for (const row of chunk) {
        const r = row.json<Omit<ExportRow, "at"> & { at_ms: string }>();
        const { at_ms, ...rest } = r;
        page.push({ at: new Date(Number(at_ms)), ...rest });
        if (page.length >= pageSize) {
          yield page;
          page = [];
        }
      }
    }
    if (page.length) yield page;
  }
}
