import { DAY_MS, utcDay } from "../model.ts";
import { CASELESS_FILTERS, FILTER_DIMS, LINK_DIMS, ROLLUP_DIMS, type LinkDim, type RollupDim } from "../store/dimensions.ts";
import { GROUPING_SETS } from "../store/rollup-build.ts";
import type { ClickHouseClient } from "./client.ts";

// ClickHouse's daily rollups (schema.ts steps 2 and 3): the rows of PostgreSQL's click_day,
// click_day_link and click_day_destination (store/rollup-build.ts builds those; the same rows),
// built from one UTC day's events in ClickHouse. Visitors are unique visitor keys per day, so a
// range's visitors are the sum of its days' (keys change every UTC day), and each day's figure is
// a plain number: a one-year report reads a few hundred rows per value instead of every event.
//
// A build is tagged with its own id; click_day_built records it with the day's event count as
// click_day_events had it before the build read the events. A day is answered from its latest
// build while that count is still the day's count: an event stored later (late, or a batch kept
// through an outage) makes them differ, and the day is read from the events until it is built
// again. Older builds' rows are deleted after a newer one is recorded.

type EventDim = Exclude<RollupDim, "total">;

/** Each dimension's value as the rollups keep it (store/dimensions.ts DIMENSIONS value, in ClickHouse's SQL). */
const VALUE: Record<EventDim, string> = {
  country: `coalesce(country, '')`,
  city: `concat(coalesce(city, ''), '\\t', coalesce(country, ''))`,
  referrer: `coalesce(referrer_host, '')`,
  device: `device`,
  browser: `coalesce(browser, '')`,
  os: `coalesce(os, '')`,
  qr: `if(qr, 'true', 'false')`,
  link: `toString(link_id)`,
  destination: `coalesce(destination, '')`,
  language: `coalesce(language, '')`,
};
const caseless = (d: string) => (CASELESS_FILTERS as readonly string[]).includes(d);
/** A dimension's value in the per-link rows (dimensions.ts linkValueSql); a city is kept only where there is one. */
const linkValue = (d: LinkDim) =>
  d === "city" ? `if(city IS NULL, NULL, ${VALUE.city})` : caseless(d) ? `lower(${VALUE[d]})` : VALUE[d as EventDim];

const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(", ")}]`;
// the days of a build (a list of UTC days, read by one statement)
const daysRange = `at >= toDateTime64({first:Date}, 3, 'UTC') AND at < toDateTime64({last:Date} + 1, 3, 'UTC') AND toDate(at) IN {days:Array(Date)}`;

// One pass groups the day's events by every grouping set (null: not in the set); each result row
// becomes the rows it answers, exactly as store/rollup-build.ts BUILD_DAY_SQL explains.
const BUILD_DAY_SQL = `
  INSERT INTO click_day (workspace_id, day, bot, fdim, fvalue, dim, value, clicks, visitors, build, keep_days)
  SELECT workspace_id, day, bot, x.1 AS f, if(has(${list(CASELESS_FILTERS)}, x.1), lower(x.2), x.2) AS fv, x.3 AS dm, x.4 AS val,
         sum(clicks), sum(visitors), {build:UInt64}, max(keep)
  FROM (
    SELECT day, workspace_id, bot, count() AS clicks, uniqExact(visitor) AS visitors, max(keep_days) AS keep,
           arrayFilter(n -> n != '', [${ROLLUP_DIMS.map((d) => `if(${d} IS NULL, '', '${d}')`).join(", ")}]) AS d,
           arrayMap(v -> assumeNotNull(v), arrayFilter(v -> v IS NOT NULL, [${ROLLUP_DIMS.join(", ")}])) AS v
    FROM (SELECT toDate(at) AS day, workspace_id, bot, visitor, keep_days, ${ROLLUP_DIMS.map((d) => `toString(${VALUE[d]}) AS ${d}`).join(", ")}
          FROM click_event WHERE ${daysRange})
    GROUP BY GROUPING SETS (${GROUPING_SETS.replace(/\(/g, "(day, workspace_id, bot, ").replace(/, \)/g, ")")})
    SETTINGS group_by_use_nulls = 1
  ) g
  ARRAY JOIN [
    tuple('', '', if(length(d) >= 1, d[1], 'total'), if(length(v) >= 1, v[1], ''), length(d) <= 1),
    tuple(d[1], v[1], if(length(d) >= 2, d[2], 'total'), if(length(v) >= 2, v[2], ''), length(d) >= 1 AND has(${list(FILTER_DIMS)}, d[1])),
    tuple(d[2], v[2], d[1], v[1], length(d) = 2 AND has(${list(FILTER_DIMS)}, d[2])),
    tuple(d[1], v[1], d[1], v[1], length(d) = 1 AND has(${list(FILTER_DIMS)}, d[1]))
  ] AS x
  WHERE x.5
  GROUP BY day, workspace_id, bot, f, fv, dm, val`;

// one row per event and dimension, counted per visitor first, then per link (BUILD_LINK_DAY_SQL)
const BUILD_LINK_DAY_SQL = `
  INSERT INTO click_day_link (workspace_id, day, bot, fdim, fvalue, link_id, clicks, visitors, build, keep_days)
  SELECT workspace_id, day, bot, f, fv, link_id, sum(clicks), count(), {build:UInt64}, max(keep)
  FROM (
    SELECT toDate(at) AS day, workspace_id, bot, x.1 AS f, assumeNotNull(x.2) AS fv, link_id, count() AS clicks, max(keep_days) AS keep
    FROM click_event
    ARRAY JOIN [${LINK_DIMS.map((d) => `tuple('${d}', CAST(${linkValue(d)} AS Nullable(String)))`).join(", ")}] AS x
    WHERE ${daysRange} AND x.2 IS NOT NULL
    GROUP BY day, workspace_id, bot, f, fv, link_id, visitor
  )
  GROUP BY day, workspace_id, bot, f, fv, link_id`;

// destinations under each filter value (store/destination-rollup.ts says why they are keyed by a
// hash): one pass, a grouping set per filter dimension (null: not in the set; values never are)
const BUILD_DESTINATION_DAY_SQL = `
  INSERT INTO click_day_destination (workspace_id, day, bot, fdim, fvalue, dest, clicks, visitors, build, keep_days)
  SELECT workspace_id, day, bot, multiIf(${FILTER_DIMS.map((d) => `${d} IS NOT NULL, '${d}'`).join(", ")}, '') AS f,
         assumeNotNull(coalesce(${FILTER_DIMS.join(", ")})) AS fv, dest, clicks, visitors, {build:UInt64}, keep
  FROM (
    SELECT day, workspace_id, bot, dest, ${FILTER_DIMS.join(", ")}, count() AS clicks, uniqExact(visitor) AS visitors, max(keep_days) AS keep
    FROM (SELECT toDate(at) AS day, workspace_id, bot, visitor, keep_days, MD5(coalesce(destination, '')) AS dest,
                 ${FILTER_DIMS.map((d) => `toString(${linkValue(d)}) AS ${d}`).join(", ")}
          FROM click_event WHERE ${daysRange})
    GROUP BY GROUPING SETS (${FILTER_DIMS.map((d) => `(day, workspace_id, bot, dest, ${d})`).join(", ")})
    SETTINGS group_by_use_nulls = 1
  )`;

// the URL of each key; the row that expires last is the one kept (click_destination is a
// ReplacingMergeTree by \`until\`), never before the rows naming it expire
const BUILD_DESTINATION_NAMES_SQL = `
  INSERT INTO click_destination (workspace_id, dest, url, until)
  SELECT workspace_id, MD5(u), u, max(toDate(at) + keep_days)
  FROM (SELECT workspace_id, at, keep_days, coalesce(destination, '') AS u FROM click_event WHERE ${daysRange})
  GROUP BY workspace_id, u`;

const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

async function rows<T>(ch: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  return (await ch.query({ query, query_params: params, format: "JSONEachRow" })).json<T>();
}

/** The stored events of each UTC day (click_day_events) and the latest build of each, in [from, to). */
async function dayStates(ch: ClickHouseClient, from: number, to: number) {
  const found = await rows<{ d: number; events: string; build: string; built: string }>(
    ch,
    `SELECT toInt32(e.day) AS d, e.stored AS events, b.last_build AS build, b.last_events AS built
     FROM (SELECT day, sum(events) AS stored FROM click_day_events
           WHERE day >= toDate({from:String}) AND day < toDate({to:String}) GROUP BY day) e
     LEFT JOIN (SELECT day, max(build) AS last_build, argMax(events, build) AS last_events FROM click_day_built
                WHERE day >= toDate({from:String}) AND day < toDate({to:String}) GROUP BY day) b USING day`,
    { from: dayText(from), to: dayText(to) },
  );
  return found.map((r) => ({ day: Number(r.d), events: BigInt(r.events), build: BigInt(r.build || 0), built: BigInt(r.built || 0) }));
}

/**
 * The UTC days in [from, to) a report may read from the rollups, with the build to read: each day
 * whose latest build counted every event stored now, and each day without events (nothing to read;
 * build 0 names no rows).
 */
export async function builtClickHouseDays(ch: ClickHouseClient, from: number, to: number): Promise<Map<number, bigint>> {
  const states = await dayStates(ch, from, to);
  const out = new Map<number, bigint>();
  for (let d = from; d < to; d++) out.set(d, 0n);
  for (const s of states) {
    if (s.events > 0n && (s.build === 0n || s.built !== s.events)) out.delete(s.day);
    else out.set(s.day, s.build);
  }
  return out;
}

let lastBuild = 0n;
/** A new build id, larger than every earlier one of this process (microseconds since 1970). */
function newBuild(): bigint {
  const id = BigInt(Date.now()) * 1000n;
  lastBuild = id > lastBuild ? id : lastBuild + 1n;
  return lastBuild;
}

/**
 * Builds UTC days of every workspace (one statement per table for all of them), records the build
 * of each, and deletes the older builds of the days that had one.
 */
export async function buildClickHouseDays(ch: ClickHouseClient, days: number[]): Promise<void> {
  if (!days.length) return;
  const sorted = [...days].sort((a, b) => a - b);
  const build = String(newBuild());
  const params = { days: sorted.map(dayText), first: dayText(sorted[0]), last: dayText(sorted[sorted.length - 1]), build };
  // the counts first: events stored while the build reads make a recorded count too small, never too large
  const counts = await rows<{ d: number; events: string; keep: number }>(
    ch,
    `SELECT toInt32(day) AS d, toString(sum(events)) AS events, max(keep_days) AS keep FROM click_day_events
     WHERE day IN {days:Array(Date)} GROUP BY day`,
    params,
  );
  const before = await dayStates(ch, sorted[0], sorted[sorted.length - 1] + 1);
  await ch.command({ query: BUILD_DAY_SQL, query_params: params });
  await ch.command({ query: BUILD_LINK_DAY_SQL, query_params: params });
  await ch.command({ query: BUILD_DESTINATION_NAMES_SQL, query_params: params });
  await ch.command({ query: BUILD_DESTINATION_DAY_SQL, query_params: params });
  await ch.insert({
    table: "click_day_built",
    values: counts.map((c) => ({ day: dayText(Number(c.d)), build, events: c.events, keep_days: Number(c.keep) })),
    format: "JSONEachRow",
  });
  const rebuilt = before.filter((s) => s.build !== 0n && sorted.includes(s.day)).map((s) => dayText(s.day));
  if (rebuilt.length)
    for (const table of ["click_day", "click_day_link", "click_day_destination", "click_day_built"])
      await ch.command({
        query: `DELETE FROM ${table} WHERE day IN {rebuilt:Array(Date)} AND build < {build:UInt64}`,
        query_params: { rebuilt, build },
      });
}

/** Days per build statement: a month of events is grouped in one pass. */
const BUILD_BATCH_DAYS = 31;

/**
 * Builds every complete UTC day before today whose events are not all counted by its latest build,
 * newest first (the days reports read most), a month of days at a time. Returns the days built.
 */
export async function buildPendingClickHouseDays(ch: ClickHouseClient, now = Date.now(), maxDays = 2000): Promise<number> {
  const today = utcDay(now);
  const states = await dayStates(ch, 0, today);
  const pending = states
    .filter((s) => s.events > 0n && (s.build === 0n || s.built !== s.events))
    .map((s) => s.day)
    .sort((a, b) => b - a)
    .slice(0, maxDays);
  for (let i = 0; i < pending.length; i += BUILD_BATCH_DAYS) await buildClickHouseDays(ch, pending.slice(i, i + BUILD_BATCH_DAYS));
  return pending.length;
}
