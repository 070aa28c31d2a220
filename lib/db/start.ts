import path from "node:path";
import { startEmbeddedPostgres } from "./embedded.ts";
import { applyMigrations } from "./migrate.ts";

export type DatabaseHandle = { url: string; embedded: boolean; stop: () => Promise<void> };

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under LINKHOP_DATA_DIR (.data).
 * Pending migrations are applied; a failed one throws and the caller refuses to serve.
 */
export async function prepareDatabase(log: (msg: string) => void = () => {}): Promise<DatabaseHandle> {
  let handle: DatabaseHandle;
  if (process.env.DATABASE_URL) {
    handle = { url: process.env.DATABASE_URL, embedded: false, stop: async () => {} };
  } else {
    const root = path.resolve(process.env.LINKHOP_DATA_DIR ?? ".data");
    const pg = await startEmbeddedPostgres(root);
    log(`embedded PostgreSQL ${pg.owned ? "started" : "already running"} (${root})`);
    handle = { url: pg.url, embedded: true, stop: pg.stop };
    process.env.DATABASE_URL = pg.url;
  }
  try {
    const applied = await applyMigrations(handle.url);
    if (applied.length) log(`applied migrations: ${applied.join(", ")}`);
  } catch (e) {
    await handle.stop();
    throw e;
  }
  return handle;
}
