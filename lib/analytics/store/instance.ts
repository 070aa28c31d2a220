import type pg from "pg";
import { database } from "../../db/client.ts";
import { PostgresClickStore } from "./click-store.ts";
import type { ClickStore } from "../model.ts";
import { peekShared } from "../../registry.ts";

// The click store over analytics' own pool (lib/db/client.ts: a long report never holds a
// connection the redirect path needs). One store per pool: it remembers which month partitions
// exist, and a test process may point lib/db at another database.
const stores = new WeakMap<pg.Pool, PostgresClickStore>();

/** The process's click store. */
export function clickStore(): PostgresClickStore {
  const pool = database().analytics;
  let store = stores.get(pool);
  if (!store) stores.set(pool, (store = new PostgresClickStore(pool)));
  return store;
}

/**
 * The store that answers reports and exports: ClickHouse's when the runtime has started it
 * (CLICKHOUSE_URL, lib/analytics/clickhouse/runtime.ts), else the PostgreSQL store. Writes always
 * go to PostgreSQL (clickStore).
 */
export function reportStore(): ClickStore {
  return peekShared<{ store: ClickStore }>("clickhouse")?.store ?? clickStore();
}
