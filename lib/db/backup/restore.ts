import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import { ServiceError } from "../../errors.ts";
import { AUTH_SECRET_ENTRY, DATA_PREFIX, MANIFEST_ENTRY, META_ENTRY, parseManifest } from "./format.ts";
import { readTar, type TarEntry } from "./tar.ts";

// Restoring a backup file (format.ts) into LINKHOP_DATA_DIR: the data directory is extracted into
// a staging directory beside it and renamed into place only once complete, so an interrupted
// restore never leaves a data directory the next start would take for a good one.

export type RestoreFiles = { root: string; dataDir: string; metaFile: string; authSecretFile: string };

/** Files PostgreSQL needs to start from a base backup; a backup without them is incomplete. */
const REQUIRED = ["PG_VERSION", "backup_label", "global/pg_control"];

async function readAll(content: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of content) parts.push(part);
  return Buffer.concat(parts);
}

async function drain(content: AsyncIterable<Buffer>) {
  for await (const _ of content);
}

/** `name` below pg/ as a relative path that stays inside the directory, or an error. */
function safeRelative(name: string): string {
  const rel = name.slice(DATA_PREFIX.length);
  const normal = path.posix.normalize(rel);
  if (!rel || normal !== rel || rel.startsWith("/") || rel.split("/").includes("..")) throw new Error(`unsafe path in the backup: ${name}`);
  return rel;
}

/** An existing non-empty data directory (or a file there): restoring over it would destroy it. */
export function refuseNonEmpty(dataDir: string) {
  if (!fs.existsSync(dataDir)) return;
  if (!fs.statSync(dataDir).isDirectory() || fs.readdirSync(dataDir).length > 0) {
    throw ServiceError.conflict(
      `${dataDir} is not empty: restore writes only into an empty data directory. Stop the app, move that directory aside (or set LINKHOP_DATA_DIR to a new directory) and run restore again.`,
    );
  }
}

/** Extracts `from` into `staging`; returns pg.json's content and the auth secret, if the backup has one. */
async function extract(from: string, staging: string, files: RestoreFiles) {
  let manifestSeen = false;
  let meta: Buffer | null = null;
  let authSecret: Buffer | null = null;
  const onEntry = async (entry: TarEntry, content: AsyncIterable<Buffer>) => {
    if (!manifestSeen) {
      if (entry.name !== MANIFEST_ENTRY) throw new Error("not a Linkhop backup (its manifest is missing)");
      parseManifest(await readAll(content));
      manifestSeen = true;
    } else if (entry.name === META_ENTRY) {
      meta = await readAll(content);
    } else if (entry.name === AUTH_SECRET_ENTRY) {
      authSecret = await readAll(content);
      const current = fs.existsSync(files.authSecretFile) ? fs.readFileSync(files.authSecretFile) : null;
      if (current && current.toString("utf8").trim() !== authSecret.toString("utf8").trim()) {
        throw ServiceError.conflict(
          `${files.authSecretFile} differs from the backup's auth secret, with which the database's two-factor secrets are encrypted: remove that file (or set LINKHOP_DATA_DIR to a new directory) and run restore again.`,
        );
      }
    } else if (entry.name + "/" === DATA_PREFIX) {
      await drain(content);
    } else if (entry.name.startsWith(DATA_PREFIX)) {
      const target = path.join(staging, safeRelative(entry.name));
      if (entry.type === "directory") {
        fs.mkdirSync(target, { recursive: true, mode: 0o700 });
        return;
      }
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      const handle = await fs.promises.open(target, "wx", 0o600);
      try {
        for await (const part of content) await handle.write(part);
      } finally {
        await handle.close();
      }
    } else {
      throw new Error(`unexpected entry in the backup: ${entry.name}`);
    }
  };
  await pipeline(fs.createReadStream(from), zlib.createGunzip(), (source: AsyncIterable<Buffer>) => readTar(source, onEntry));
  if (!manifestSeen) throw new Error("not a Linkhop backup (an empty archive)");
  const missing = REQUIRED.filter((f) => !fs.existsSync(path.join(staging, f)));
  if (!meta || missing.length) throw new Error(`an incomplete backup (missing ${[...(meta ? [] : [META_ENTRY]), ...missing].join(", ")})`);
  return { meta: meta as Buffer, authSecret: authSecret as Buffer | null };
}

/** Restores the backup file `from` into the empty (or absent) data directory `files.dataDir`. */
export async function restoreBackup(from: string, files: RestoreFiles): Promise<void> {
  refuseNonEmpty(files.dataDir);
  fs.mkdirSync(files.root, { recursive: true, mode: 0o755 });
  const staging = path.join(files.root, `pg.restoring-${process.pid}`);
  fs.rmSync(staging, { recursive: true, force: true });
  // PostgreSQL starts only on a data directory its user alone may enter
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    let extracted;
    try {
      extracted = await extract(from, staging, files);
    } catch (e) {
      if (e instanceof ServiceError) throw e;
      throw ServiceError.validation(`${from} cannot be restored: ${(e as Error).message}.`);
    }
    refuseNonEmpty(files.dataDir); // checked again: a start may have created it meanwhile
    // pg.json first: a data directory without it is one the next start re-creates from scratch
    fs.writeFileSync(files.metaFile, extracted.meta, { mode: 0o600 });
    if (extracted.authSecret && !fs.existsSync(files.authSecretFile)) {
      fs.writeFileSync(files.authSecretFile, extracted.authSecret, { mode: 0o600 });
    }
    if (fs.existsSync(files.dataDir)) fs.rmdirSync(files.dataDir);
    fs.renameSync(staging, files.dataDir);
  } catch (e) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw e;
  }
}
