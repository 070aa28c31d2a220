import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

// Applies the ordinary Prisma migrations in prisma/migrations, recording them in Prisma's own
// _prisma_migrations table (same columns and checksums), so `prisma migrate status` agrees.
// Doing it here instead of spawning the Prisma CLI keeps start-up fast and needs no engine binary.

const TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export class MigrationError extends Error {}

export function migrationsDir(): string {
  return path.resolve(process.env.LINKHOP_MIGRATIONS_DIR ?? "prisma/migrations");
}

/** The migrations this build ships (folder names, in the order they apply). */
export function shippedMigrations(dir = migrationsDir()): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort();
}

export async function applyMigrations(url: string, dir = migrationsDir()): Promise<string[]> {
  const names = shippedMigrations(dir);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const applied: string[] = [];
  try {
    // Several processes may start at once (app, admin CLI): one applies, the others wait.
    await client.query("select pg_advisory_lock(72120417)");
    await client.query(TABLE);
    const rows = (
      await client.query<{ migration_name: string; finished_at: Date | null; rolled_back_at: Date | null; logs: string | null }>(
        `select migration_name, finished_at, rolled_back_at, logs from "_prisma_migrations"`,
      )
    ).rows;
    const failed = rows.find((r) => !r.finished_at && !r.rolled_back_at);
    if (failed) {
      throw new MigrationError(
        `Migration ${failed.migration_name} failed earlier and the database was not repaired; refusing to serve.\n${failed.logs ?? ""}`,
      );
    }
    const done = new Set(rows.filter((r) => r.finished_at).map((r) => r.migration_name));
    for (const name of names) {
      if (done.has(name)) continue;
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const id = randomUUID();
      await client.query(`insert into "_prisma_migrations" (id, checksum, migration_name, started_at) values ($1, $2, $3, now())`, [
        id,
        checksum,
        name,
      ]);
      try {
        await client.query("begin");
        await client.query(sql);
        await client.query("commit");
      } catch (e) {
        await client.query("rollback").catch(() => {});
        await client.query(`update "_prisma_migrations" set logs = $2 where id = $1`, [id, String(e)]);
        throw new MigrationError(`Migration ${name} failed: ${(e as Error).message}`);
      }
      await client.query(`update "_prisma_migrations" set finished_at = now(), applied_steps_count = 1 where id = $1`, [id]);
      applied.push(name);
    }
  } finally {
    await client.query("select pg_advisory_unlock(72120417)").catch(() => {});
    await client.end();
  }
  return applied;
}
