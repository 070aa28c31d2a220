import fs from "node:fs";
import path from "node:path";
import { config } from "../../config/index.ts";
import { ServiceError } from "../../errors.ts";
import { embeddedFiles, startEmbeddedPostgres } from "../embedded.ts";
import { AUTH_SECRET_FILE } from "./format.ts";
import { restoreBackup } from "./restore.ts";
import { writeBackup } from "./take.ts";

// `npm run admin -- backup --out FILE` and `restore --from FILE` (lib/admin/commands.ts): backups
// of the embedded PostgreSQL under LINKHOP_DATA_DIR. The file's format: format.ts; how a
// consistent copy is taken while the app writes: take.ts; restoring: restore.ts.

/** LINKHOP_DATA_DIR's files, or the refusal when the app uses a database of its own (DATABASE_URL). */
function embeddedOnly(what: "backup" | "restore") {
  const cfg = config();
  if (cfg.DATABASE_URL) {
    throw ServiceError.conflict(
      `${what} works on the embedded database only, and DATABASE_URL is set: use your database's own backups (pg_dump, snapshots, your provider's backups).`,
    );
  }
  const root = path.resolve(cfg.LINKHOP_DATA_DIR);
  return { root, ...embeddedFiles(root), authSecretFile: path.join(root, AUTH_SECRET_FILE) };
}

function inside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * A consistent backup of the embedded database written to `out`, whether the app is running (its
 * server is used and left running) or not (a server is started for the backup and stopped after).
 */
export async function backupEmbeddedDatabase(out: string): Promise<{ file: string; bytes: number }> {
  const files = embeddedOnly("backup");
  const file = path.resolve(out);
  if (!fs.existsSync(path.join(files.dataDir, "PG_VERSION")) || !fs.existsSync(files.metaFile)) {
    throw ServiceError.notFound(`No embedded database in ${files.root} (LINKHOP_DATA_DIR): nothing to back up.`);
  }
  if (inside(file, files.dataDir)) throw ServiceError.validation(`--out must be outside the data directory ${files.dataDir}.`);
  if (!fs.existsSync(path.dirname(file)) || !fs.statSync(path.dirname(file)).isDirectory()) {
    throw ServiceError.validation(`--out: no directory ${path.dirname(file)}.`);
  }
  if (fs.existsSync(file) && !fs.statSync(file).isFile()) throw ServiceError.validation(`--out: ${file} is not a file.`);
  const server = await startEmbeddedPostgres(files.root);
  try {
    return { file, bytes: await writeBackup(server.url, files, file) };
  } finally {
    await server.stop(); // only a server this process started
  }
}

/** Restores the backup file `from` into LINKHOP_DATA_DIR, whose PostgreSQL data directory must be empty or absent. */
export async function restoreEmbeddedDatabase(from: string): Promise<{ restored: string }> {
  const files = embeddedOnly("restore");
  const file = path.resolve(from);
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw ServiceError.notFound(`No backup file ${file}.`);
  await restoreBackup(file, files);
  return { restored: files.dataDir };
}
