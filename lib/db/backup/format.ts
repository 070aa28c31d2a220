// The backup file of the embedded database (`npm run admin -- backup --out FILE`): one gzip-
// compressed POSIX tar archive (`tar -tzf FILE` lists it), whose entries come in this order:
//
//   linkhop-backup.json  the manifest below; restore refuses a file that does not start with it
//   pg.json              the embedded server's connection settings (user, password, port): the
//                        cluster accepts only the password it was created with (lib/db/embedded.ts)
//   auth-secret          LINKHOP_DATA_DIR/auth-secret when the app generated one (server.ts): it
//                        signs sessions and encrypts the two-factor secrets stored in the database
//   pg/...               a base backup of the data directory taken with PostgreSQL's low-level
//                        backup API (lib/db/backup/take.ts), then pg/backup_label, then in pg/pg_wal/
//                        every WAL segment from the backup's start to its end
//
// Restoring is extracting pg/ into an empty data directory, next to pg.json (and auth-secret):
// on its first start PostgreSQL reads backup_label and replays the WAL up to the backup's end, so
// the database is as it was at some moment between the start and the end of the backup.
//
// The file holds the database password and the auth secret: it is written readable by its owner
// only, and must be kept as carefully as the data directory itself.

export const MANIFEST_ENTRY = "linkhop-backup.json";
export const META_ENTRY = "pg.json";
export const AUTH_SECRET_ENTRY = "auth-secret";
/** The data directory's entries start with this (and the directory itself is named so, without "/"). */
export const DATA_PREFIX = "pg/";
/** The file server.ts generates in LINKHOP_DATA_DIR when AUTH_SECRET is not set. */
export const AUTH_SECRET_FILE = "auth-secret";

export const FORMAT = "linkhop-embedded-backup";
export const FORMAT_VERSION = 1;

export type Manifest = {
  format: typeof FORMAT;
  version: number;
  createdAt: string;
  /** server_version of the PostgreSQL that was backed up: restore needs the same major version */
  postgres: string;
  label: string;
};

export function parseManifest(content: Buffer): Manifest {
  let manifest: Partial<Manifest> | null = null;
  try {
    manifest = JSON.parse(content.toString("utf8"));
  } catch {}
  if (manifest?.format !== FORMAT) throw new Error("not a Linkhop backup (its manifest is missing)");
  if (manifest.version !== FORMAT_VERSION) {
    throw new Error(`a Linkhop backup of format version ${manifest.version}: this version reads version ${FORMAT_VERSION}`);
  }
  return manifest as Manifest;
}
