import { createClient, type ClickHouseClient } from "@clickhouse/client";

// The one ClickHouse client of a process (lib/runtime.ts makes it when CLICKHOUSE_URL is set):
// @clickhouse/client over HTTP in production. Tests give it another connection (an embedded
// ClickHouse, tests/clickhouse/) through the same options, so every statement of the sink, the
// schema and the reports goes through the same client code in both.

export type { ClickHouseClient };

/** What stands behind the client: a server's URL, or a ready connection (the client's `connection` option). */
export type ClickHouseTarget = { url: string } | { connection: NonNullable<Parameters<typeof createClient>[0]>["connection"] };

export function createClickHouse(target: ClickHouseTarget): ClickHouseClient {
  return createClient({
    ...target,
    application: "linkhop",
    request_timeout: 60_000,
    clickhouse_settings: {
      // 64-bit figures come back as numbers where a statement casts them; keys stay exact as strings
      output_format_json_quote_64bit_integers: 1,
      // a repeated insert (the sink's retry, same token) is dropped by the materialized views'
      // tables too, not only by click_event (schema.ts step 2: click_day_events counts each event once)
      deduplicate_blocks_in_dependent_materialized_views: 1,
    },
  });
}
