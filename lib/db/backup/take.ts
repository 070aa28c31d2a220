import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import pg from "pg";
import { CONTROL_FILE, dataDirEntries, startWalFile, WAL_SUBDIRECTORIES, walSegmentNames } from "./data-dir.ts";
import { AUTH_SECRET_ENTRY, DATA_PREFIX, FORMAT, FORMAT_VERSION, MANIFEST_ENTRY, META_ENTRY, type Manifest } from "./format.ts";
import { TAR_END, tarFile, tarHeader, tarPadding } from "./tar.ts";

// A consistent copy of a running embedded PostgreSQL (the shipped binaries have no pg_basebackup
// or pg_dump), by PostgreSQL's low-level backup API:
//
//   1. one session creates a temporary physical replication slot reserving WAL from now on, so
//      no checkpoint recycles a segment the backup needs before it is copied (the slot goes
//      when the session ends, also when this process dies)
//   2. pg_backup_start: a checkpoint; from then on every page change is logged in full
//   3. the data directory's files are copied as they are, torn pages and all (lib/db/backup/data-dir.ts)
//   4. pg_backup_stop: returns the backup_label to put into the copy and switches to a new WAL
//      segment, so the one holding the backup's end is complete
//   5. the WAL segments from the label's start to the stop position are copied
//
// Replaying that WAL over the copy (restore.ts, then the first start) makes it consistent. The
// session stays open from 1 to 5: closing it aborts the backup.

const CHUNK = 1 << 20;

export type BackupFiles = { dataDir: string; metaFile: string; authSecretFile: string };

/**
 * One file as a tar entry of the size it had when opened. A file that shrinks meanwhile (a
 * relation truncated by VACUUM) is padded with zeros, one that grows is cut there: WAL replay
 * brings both to their state at the backup's end. A file removed before it was opened (a dropped
 * table) is left out, unless `required`.
 */
export async function* fileEntry(file: string, name: string, required = false): AsyncGenerator<Buffer> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r");
  } catch (e) {
    if (!required && (e as NodeJS.ErrnoException).code === "ENOENT") return;
    throw e;
  }
  try {
    const { size, mtimeMs } = await handle.stat();
    yield tarHeader({ name, type: "file", size, mode: 0o600, mtime: mtimeMs });
    let done = 0;
    while (done < size) {
      const buffer = Buffer.alloc(Math.min(CHUNK, size - done));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, done);
      if (bytesRead === 0) {
        yield Buffer.alloc(size - done); // the file ended early: zeros up to the announced size
        break;
      }
      yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
      done += bytesRead;
    }
    yield tarPadding(size);
  } finally {
    await handle.close();
  }
}

function directoryEntry(name: string): Buffer {
  return tarHeader({ name, type: "directory", size: 0, mode: 0o700, mtime: Date.now() });
}

async function one<T>(client: pg.Client, sql: string, params: unknown[] = []): Promise<T> {
  return (await client.query(sql, params)).rows[0] as T;
}

/** The archive's bytes (format.ts), read from the data directory while `client`'s session holds the backup open. */
async function* archive(client: pg.Client, files: BackupFiles): AsyncGenerator<Buffer> {
  const label = `linkhop backup ${new Date().toISOString()}`;
  const { server_version } = await one<{ server_version: string }>(client, "show server_version");
  const manifest: Manifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    postgres: server_version,
    label,
  };
  yield* tarFile(MANIFEST_ENTRY, Buffer.from(JSON.stringify(manifest, null, 1) + "\n"));
  yield* fileEntry(files.metaFile, META_ENTRY, true);
  yield* fileEntry(files.authSecretFile, AUTH_SECRET_ENTRY);

  const slot = `linkhop_backup_${process.pid}_${Date.now()}`;
  await client.query("select pg_create_physical_replication_slot($1, immediately_reserve => true, temporary => true)", [slot]);
  await client.query("select pg_backup_start(label => $1, fast => true)", [label]);
  yield directoryEntry(DATA_PREFIX);
  for await (const entry of dataDirEntries(files.dataDir)) {
    if (entry.type === "directory") yield directoryEntry(DATA_PREFIX + entry.rel);
    else yield* fileEntry(path.join(files.dataDir, entry.rel), DATA_PREFIX + entry.rel);
  }
  yield* fileEntry(path.join(files.dataDir, CONTROL_FILE), DATA_PREFIX + CONTROL_FILE, true);

  const stop = await one<{ lsn: string; labelfile: string; spcmapfile: string | null }>(
    client,
    "select lsn::text, labelfile, spcmapfile from pg_backup_stop(wait_for_archive => false)",
  );
  yield* tarFile(DATA_PREFIX + "backup_label", Buffer.from(stop.labelfile));
  if (stop.spcmapfile) yield* tarFile(DATA_PREFIX + "tablespace_map", Buffer.from(stop.spcmapfile));
  for (const dir of WAL_SUBDIRECTORIES) yield directoryEntry(DATA_PREFIX + dir);
  const { last } = await one<{ last: string }>(client, "select pg_walfile_name($1::pg_lsn) as last", [stop.lsn]);
  const { bytes } = await one<{ bytes: string }>(client, "select setting as bytes from pg_settings where name = 'wal_segment_size'");
  for (const segment of walSegmentNames(startWalFile(stop.labelfile), last, Number(bytes))) {
    yield* fileEntry(path.join(files.dataDir, "pg_wal", segment), `${DATA_PREFIX}pg_wal/${segment}`, true);
  }
  // timeline history files: a cluster that was ever promoted or recovered needs them to replay
  for (const name of fs
    .readdirSync(path.join(files.dataDir, "pg_wal"))
    .filter((n) => n.endsWith(".history"))
    .sort()) {
    yield* fileEntry(path.join(files.dataDir, "pg_wal", name), `${DATA_PREFIX}pg_wal/${name}`, true);
  }
  yield TAR_END;
}

/**
 * Writes the backup of the server at `url` (its data directory and settings in `files`) to
 * `out`: into a temporary file beside it, flushed to disk, then renamed, so `out` is always either
 * the previous file or a complete backup. Returns the file's size.
 */
export async function writeBackup(url: string, files: BackupFiles, out: string): Promise<number> {
  const partial = path.join(path.dirname(out), `.${path.basename(out)}.partial-${process.pid}`);
  const client = new pg.Client({ connectionString: url, application_name: "linkhop backup" });
  await client.connect();
  try {
    await pipeline(archive(client, files), zlib.createGzip(), fs.createWriteStream(partial, { mode: 0o600 }));
    const handle = await fs.promises.open(partial, "r+");
    await handle.sync().finally(() => handle.close());
    fs.renameSync(partial, out);
    return fs.statSync(out).size;
  } catch (e) {
    fs.rmSync(partial, { force: true });
    throw e;
  } finally {
    // ending the session also ends a backup still in progress and drops the slot
    await client.end().catch(() => {});
  }
}
