import type { ClickHouseClient } from "./client.ts";

// ClickHouse's schema, created and migrated by the app like the PostgreSQL migrations: numbered
// steps applied in order, each recorded in linkhop_migrations (the table's own first step). A step
// is never edited once released; a change is a new step.
//
// click_event: one row per stored click event, written by the sink (sink.ts) from PostgreSQL's feed.
// - ORDER BY (workspace_id, at, link_id): every report is one workspace over a time range.
// - PARTITION BY month, TTL per row from the workspace plan's retention when the row was written
//   (keep_days); ttl_only_drop_parts drops whole parts once every row in them has expired, never
//   rewriting a part to delete rows.
// - (tx, seq) is the event's place in PostgreSQL's feed: the sink's insert token names a batch by
//   its first and last place, and non_replicated_deduplication_window makes a retried insert of the
//   same batch a no-op (a replicated table deduplicates by the same token through Keeper).
//
// Step 2, the daily rollups (clickhouse/rollups.ts builds and reads them; store/plan.ts chooses
// them): click_day and click_day_link hold the same rows as PostgreSQL's tables of those names
// (one UTC day's figures per dimension value, with visitors counted exactly), each day's rows
// tagged with the build that wrote them. click_day_events counts the stored events per UTC day
// through a materialized view (it fires only for blocks actually inserted: a deduplicated repeat
// of a batch counts nothing), and click_day_built records each build with the count it read: a day
// is answered from its build only while the two counts agree (a late event makes them differ until
// the day is built again). TTLs follow the events' retention (keep_days, the longest of the day's).

export type ClickHouseStep = { version: number; name: string; statements: string[] };

export const CLICKHOUSE_STEPS: ClickHouseStep[] = [
  {
    version: 1,
    name: "click_event",
    statements: [
      `CREATE TABLE IF NOT EXISTS click_event (
        at            DateTime64(3, 'UTC'),
        workspace_id  Int32,
        link_id       Int32,
        domain        LowCardinality(String),
        target        LowCardinality(String),
        country       LowCardinality(Nullable(String)),
        city          Nullable(String),
        referrer_host Nullable(String),
        referrer_url  Nullable(String),
        device        LowCardinality(String),
        browser       LowCardinality(Nullable(String)),
        os            LowCardinality(Nullable(String)),
        bot           Bool,
        qr            Bool,
        visitor       Int64,
        destination   Nullable(String),
        language      LowCardinality(Nullable(String)),
        tx            UInt64,
        seq           Int64,
        keep_days     UInt16
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(at)
      ORDER BY (workspace_id, at, link_id)
      TTL toDateTime(at) + toIntervalDay(keep_days)
      SETTINGS non_replicated_deduplication_window = 10000, ttl_only_drop_parts = 1`,
    ],
  },
  {
    version: 2,
    name: "daily_rollups",
    statements: [
      `CREATE TABLE IF NOT EXISTS click_day_events (
        day       Date,
        events    SimpleAggregateFunction(sum, UInt64),
        keep_days SimpleAggregateFunction(max, UInt16)
      ) ENGINE = AggregatingMergeTree
      PARTITION BY toYYYYMM(day)
      ORDER BY day
      TTL day + toIntervalDay(keep_days)
      SETTINGS non_replicated_deduplication_window = 10000`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS click_day_events_mv TO click_day_events AS
        SELECT toDate(at) AS day, count() AS events, max(keep_days) AS keep_days FROM click_event GROUP BY day`,
      // the events stored before this step (later ones arrive through the view)
      `INSERT INTO click_day_events SELECT toDate(at) AS day, count() AS events, max(keep_days) AS keep_days FROM click_event GROUP BY day`,
      `CREATE TABLE IF NOT EXISTS click_day_built (
        day       Date,
        build     UInt64,
        events    UInt64,
        keep_days UInt16
      ) ENGINE = MergeTree
      ORDER BY (day, build)
      TTL day + toIntervalDay(keep_days)`,
      `CREATE TABLE IF NOT EXISTS click_day (
        workspace_id Int32,
        day          Date,
        bot          Bool,
        fdim         LowCardinality(String),
        fvalue       String,
        dim          LowCardinality(String),
        value        String,
        clicks       UInt64,
        visitors     UInt64,
        build        UInt64,
        keep_days    UInt16
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(day)
      ORDER BY (workspace_id, fdim, fvalue, dim, day, value)
      TTL day + toIntervalDay(keep_days)
      SETTINGS ttl_only_drop_parts = 1`,
      `CREATE TABLE IF NOT EXISTS click_day_link (
        workspace_id Int32,
        day          Date,
        bot          Bool,
        fdim         LowCardinality(String),
        fvalue       String,
        link_id      Int32,
        clicks       UInt64,
        visitors     UInt64,
        build        UInt64,
        keep_days    UInt16
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(day)
      ORDER BY (workspace_id, fdim, fvalue, day, link_id)
      TTL day + toIntervalDay(keep_days)
      SETTINGS ttl_only_drop_parts = 1`,
    ],
  },
  {
    // Top destinations under one dimension filter (store/plan.ts; PostgreSQL's tables of the same
    // names, migration *_click_day_destination): click_day_destination keeps each day's figures per
    // filter value and destination, the destination named by MD5 of its URL (16 bytes, not the long
    // URL); click_destination keeps each URL once per workspace, the row that expires last winning
    // (`until`: the latest day naming it plus its retention, never before the rows naming it).
    // The rollups are derived data: emptied here, so every day is built again with the new rows
    // (until then reports read its events).
    version: 3,
    name: "destination_rollups",
    statements: [
      `CREATE TABLE IF NOT EXISTS click_day_destination (
        workspace_id Int32,
        day          Date,
        bot          Bool,
        fdim         LowCardinality(String),
        fvalue       String,
        dest         FixedString(16),
        clicks       UInt64,
        visitors     UInt64,
        build        UInt64,
        keep_days    UInt16
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(day)
      ORDER BY (workspace_id, fdim, fvalue, day, dest)
      TTL day + toIntervalDay(keep_days)
      SETTINGS ttl_only_drop_parts = 1`,
      `CREATE TABLE IF NOT EXISTS click_destination (
        workspace_id Int32,
        dest         FixedString(16),
        url          String,
        until        Date
      ) ENGINE = ReplacingMergeTree(until)
      ORDER BY (workspace_id, dest)
      TTL until`,
      `TRUNCATE TABLE IF EXISTS click_day`,
      `TRUNCATE TABLE IF EXISTS click_day_link`,
      `TRUNCATE TABLE IF EXISTS click_day_built`,
    ],
  },
];

const LEDGER = `CREATE TABLE IF NOT EXISTS linkhop_migrations (
  version UInt32, name String, applied_at DateTime DEFAULT now()
) ENGINE = MergeTree ORDER BY version`;

/** Applies the steps not yet recorded, in order; returns the versions applied now. */
export async function migrateClickHouse(ch: ClickHouseClient, steps = CLICKHOUSE_STEPS): Promise<number[]> {
  await ch.command({ query: LEDGER });
  const rs = await ch.query({ query: `SELECT version FROM linkhop_migrations`, format: "JSONEachRow" });
  const done = new Set((await rs.json<{ version: number }>()).map((r) => Number(r.version)));
  const applied: number[] = [];
  for (const step of [...steps].sort((a, b) => a.version - b.version)) {
    if (done.has(step.version)) continue;
    for (const query of step.statements) await ch.command({ query });
    await ch.insert({ table: "linkhop_migrations", values: [{ version: step.version, name: step.name }], format: "JSONEachRow" });
    applied.push(step.version);
  }
  return applied;
}
