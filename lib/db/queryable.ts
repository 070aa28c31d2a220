import type pg from "pg";

/**
 * What the named SQL functions of every area (the sql.ts files of lib, lib/analytics/store) run on: a pool,
 * which takes a connection per statement, or anything with its query method.
 */
export type Queryable = Pick<pg.Pool, "query">;
