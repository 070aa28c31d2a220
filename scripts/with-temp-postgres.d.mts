// Types for with-temp-postgres.mjs (the TypeScript config does not check plain JS).
export interface TempPostgres {
  /** postgresql://linkhop@127.0.0.1:PORT/postgres (superuser, trust auth) */
  url: string;
  port: number;
  /** temp directory holding the cluster and its socket; deleted by stop() */
  dir: string;
  urlFor(database: string): string;
  /** CREATE DATABASE name; returns its URL */
  createDatabase(name: string): Promise<string>;
  /** fast shutdown, then delete the temp directory */
  stop(): Promise<void>;
}
export function startTempPostgres(): Promise<TempPostgres>;
