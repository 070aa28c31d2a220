import fs from "node:fs";
import path from "node:path";

// What of a running cluster's data directory a base backup copies. PostgreSQL's documentation of
// the low-level backup API lists what to leave out (the same as pg_basebackup leaves out): files
// of the running server, and directories whose content the server rebuilds at start, which are
// copied empty. WAL (pg_wal) is copied separately, after the backup's end (lib/db/backup/take.ts).

/** Files of the running server at the top of the data directory, never copied. */
const SKIPPED_FILES = new Set([
  "postmaster.pid",
  "postmaster.opts",
  "backup_label",
  "tablespace_map",
  "backup_manifest",
  "postgresql.auto.conf.tmp",
  "current_logfiles.tmp",
]);

/** Top-level directories copied empty. */
const EMPTIED_DIRECTORIES = new Set([
  "pg_wal",
  "pg_dynshmem",
  "pg_notify",
  "pg_replslot",
  "pg_serial",
  "pg_snapshots",
  "pg_stat_tmp",
  "pg_subtrans",
]);

/** Copied after every other file, as pg_basebackup does: the control file is the one the server rewrites in place. */
export const CONTROL_FILE = "global/pg_control";

/** Whether the entry at `rel` (a "/"-separated path inside the data directory) goes into the backup. */
export function copied(rel: string): boolean {
  const parts = rel.split("/");
  const base = parts[parts.length - 1];
  if (parts.length === 1 && SKIPPED_FILES.has(base)) return false;
  // the server's Unix socket lock file (lib/db/embedded.ts puts the socket in the data directory)
  if (parts.length === 1 && base.startsWith(".s.PGSQL.")) return false;
  if (parts.length > 1 && EMPTIED_DIRECTORIES.has(parts[0])) return false;
  // temporary files of running queries, and relation caches the server rebuilds
  if (base.startsWith("pgsql_tmp") || base.startsWith("pg_internal.init")) return false;
  return rel !== CONTROL_FILE;
}

export type DataDirEntry = { rel: string; type: "file" | "directory" };

/**
 * The data directory's entries to copy, parents before their content. Entries the server removes
 * while this runs (a dropped table's files) are left out; WAL replay drops them again. A symbolic
 * link would be a tablespace elsewhere on disk, which the embedded server never creates: an error.
 */
export async function* dataDirEntries(dataDir: string, rel = ""): AsyncGenerator<DataDirEntry> {
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(rel ? path.join(dataDir, rel) : dataDir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (!copied(child)) continue;
    if (entry.isSymbolicLink()) throw new Error(`${child} is a symbolic link (a tablespace?): the backup copies one data directory only`);
    if (entry.isDirectory()) {
      yield { rel: child, type: "directory" };
      yield* dataDirEntries(dataDir, child);
    } else if (entry.isFile()) {
      yield { rel: child, type: "file" };
    }
  }
}

/** Directories of pg_wal that a started server expects, created empty in the backup. */
export const WAL_SUBDIRECTORIES = ["pg_wal/archive_status", "pg_wal/summaries"];

const WAL_FILE = /^([0-9A-F]{8})([0-9A-F]{8})([0-9A-F]{8})$/;

/**
 * The names of the WAL segment files from `first` to `last` (both included, both names as
 * PostgreSQL gives them: timeline, then the segment number in two 8-digit hex halves, each half
 * counting up to 4 GiB of WAL).
 */
export function walSegmentNames(first: string, last: string, segmentBytes: number): string[] {
  const a = WAL_FILE.exec(first);
  const b = WAL_FILE.exec(last);
  if (!a || !b) throw new Error(`not WAL segment names: ${first}, ${last}`);
  if (a[1] !== b[1]) throw new Error(`the timeline changed during the backup (${first} to ${last})`);
  const perHalf = 0x1_0000_0000 / segmentBytes;
  const number = (m: RegExpExecArray) => parseInt(m[2], 16) * perHalf + parseInt(m[3], 16);
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, "0");
  const names: string[] = [];
  for (let n = number(a); n <= number(b); n++) names.push(a[1] + hex(Math.floor(n / perHalf)) + hex(n % perHalf));
  if (names.length === 0) throw new Error(`the backup's last WAL segment ${last} comes before its first ${first}`);
  return names;
}

/** The first WAL segment a backup needs, as its backup_label names it ("START WAL LOCATION: ... (file ...)"). */
export function startWalFile(backupLabel: string): string {
  const m = /^START WAL LOCATION: \S+ \(file ([0-9A-F]{24})\)$/m.exec(backupLabel);
  if (!m) throw new Error("the backup label names no start WAL file");
  return m[1];
}
