import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import pg from "pg";
import { pack as tarPack, type Pack } from "tar-stream";
import { CONTROL_FILE, dataDirEntries, startWalFile, WAL_SUBDIRECTORIES, walSegmentNames } from "./data-dir.ts";
import { AUTH_SECRET_ENTRY, DATA_PREFIX, FORMAT, FORMAT_VERSION, MANIFEST_ENTRY, META_ENTRY, type Manifest } from "./format.ts";
import { addBuffer, addEntry } from "./tar.ts";

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

type OpenFile = { handle: fs.promises.FileHandle; size: number; mtimeMs: number };

/** `file` opened, with its size now; null when it was removed (a dropped table), unless `required`. */
export async function openFile(file: string, required = false): Promise<OpenFile | null> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, "r");
  } catch (e) {
    if (!required && (e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    const { size, mtimeMs } = await handle.stat();
    return { handle, size, mtimeMs };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/**
 * The first `size` bytes of the open file. Where it ended early (PostgreSQL truncated it since it
 * was opened), zeros up to the announced size: WAL replay at restore repairs that file.
 */
async function* announcedBytes(handle: fs.promises.FileHandle, size: number): AsyncGenerator<Buffer> {
  let ended = false;
  for (let done = 0; done < size;) {
    const buffer = Buffer.alloc(Math.min(CHUNK, size - done));
    const bytesRead: number = ended ? 0 : (await handle.read(buffer, 0, buffer.length, done)).bytesRead;
    ended = bytesRead === 0; // the file ended early: zeros (the buffer as allocated) up to the announced size
    const piece = ended || bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
    yield piece;
    done += piece.length;
  }
}

/**
 * One opened file as a tar entry of the size it had when opened, then closed. A file that shrinks
 * meanwhile (a relation truncated by VACUUM) is padded with zeros, one that grows is cut there:
 * WAL replay brings both to their state at the backup's end. (The entry must hold exactly the size
 * its header announces: tar-stream fails the archive otherwise.)
 */
export async function addOpenFile(pack: Pack, name: string, { handle, size, mtimeMs }: OpenFile): Promise<void> {
  try {
    await addEntry(pack, { name, type: "file", size, mode: 0o600, mtime: mtimeMs }, announcedBytes(handle, size));
  } finally {
    await handle.close();
  }
}

/** `file` as a tar entry (addOpenFile); left out when it was removed before it was opened, unless `required`. */
export async function addFile(pack: Pack, file: string, name: string, required = false): Promise<void> {
  const opened = await openFile(file, required);
  if (opened) await addOpenFile(pack, name, opened);
}

function addDirectory(pack: Pack, name: string): Promise<void> {
  return addEntry(pack, { name, type: "directory", size: 0, mode: 0o700, mtime: Date.now() });
}

async function one<T>(client: pg.Client, sql: string, params: unknown[] = []): Promise<T> {
  return (await client.query(sql, params)).rows[0] as T;
}

/** Adds the archive's entries (format.ts) to `pack`, read from the data directory while `client`'s session holds the backup open. */
async function addEntries(pack: Pack, client: pg.Client, files: BackupFiles): Promise<void> {
  const label = `linkhop backup ${new Date().toISOString()}`;
  const { server_version } = await one<{ server_version: string }>(client, "show server_version");
  const manifest: Manifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    postgres: server_version,
    label,
  };
  await addBuffer(pack, MANIFEST_ENTRY, Buffer.from(JSON.stringify(manifest, null, 1) + "\n"));
  await addFile(pack, files.metaFile, META_ENTRY, true);
  await addFile(pack, files.authSecretFile, AUTH_SECRET_ENTRY);

  const slot = `linkhop_backup_${process.pid}_${Date.now()}`;
  await client.query("select pg_create_physical_replication_slot($1, immediately_reserve => true, temporary => true)", [slot]);
  await client.query("select pg_backup_start(label => $1, fast => true)", [label]);
  await addDirectory(pack, DATA_PREFIX);
  for await (const entry of dataDirEntries(files.dataDir)) {
    if (entry.type === "directory") await addDirectory(pack, DATA_PREFIX + entry.rel);
    else await addFile(pack, path.join(files.dataDir, entry.rel), DATA_PREFIX + entry.rel);
  }
  await addFile(pack, path.join(files.dataDir, CONTROL_FILE), DATA_PREFIX + CONTROL_FILE, true);

  const stop = await one<{ lsn: string; labelfile: string; spcmapfile: string | null }>(
    client,
    "select lsn::text, labelfile, spcmapfile from pg_backup_stop(wait_for_archive => false)",
  );
  await addBuffer(pack, DATA_PREFIX + "backup_label", Buffer.from(stop.labelfile));
  if (stop.spcmapfile) await addBuffer(pack, DATA_PREFIX + "tablespace_map", Buffer.from(stop.spcmapfile));
  for (const dir of WAL_SUBDIRECTORIES) await addDirectory(pack, DATA_PREFIX + dir);
  const { last } = await one<{ last: string }>(client, "select pg_walfile_name($1::pg_lsn) as last", [stop.lsn]);
  const { bytes } = await one<{ bytes: string }>(client, "select setting as bytes from pg_settings where name = 'wal_segment_size'");
  for (const segment of walSegmentNames(startWalFile(stop.labelfile), last, Number(bytes))) {
    await addFile(pack, path.join(files.dataDir, "pg_wal", segment), `${DATA_PREFIX}pg_wal/${segment}`, true);
  }
  // timeline history files: a cluster that was ever promoted or recovered needs them to replay
  for (const name of fs
    .readdirSync(path.join(files.dataDir, "pg_wal"))
    .filter((n) => n.endsWith(".history"))
    .sort()) {
    await addFile(pack, path.join(files.dataDir, "pg_wal", name), `${DATA_PREFIX}pg_wal/${name}`, true);
  }
}

/**
 * The archive of `addEntries`, gzip-compressed into `file`. The first failure, of either side, is
 * the one reported: it ends the archive, which fails the other side too.
 */
async function writeArchive(client: pg.Client, files: BackupFiles, file: string): Promise<void> {
  const pack = tarPack();
  let failure: unknown = null;
  const fail = (e: unknown) => {
    failure ??= e;
    pack.destroy(e as Error);
  };
  await Promise.all([
    pipeline(pack, zlib.createGzip(), fs.createWriteStream(file, { mode: 0o600 })).catch(fail),
    addEntries(pack, client, files).then(() => pack.finalize(), fail),
  ]);
  if (failure) throw failure;
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
    await writeArchive(client, files, partial);
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
