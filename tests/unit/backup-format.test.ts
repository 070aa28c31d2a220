import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { pack as tarPack, type Pack } from "tar-stream";
import { afterAll, describe, expect, test } from "vitest";
import { copied, startWalFile, walSegmentNames } from "../../lib/db/backup/data-dir.ts";
import { FORMAT, FORMAT_VERSION, parseManifest } from "../../lib/db/backup/format.ts";
import { addFile, addOpenFile, openFile } from "../../lib/db/backup/take.ts";
import { addBuffer, addEntry, readTar, type TarEntry } from "../../lib/db/backup/tar.ts";

// The pieces of the embedded database's backup file (lib/db/backup) that need no PostgreSQL; the
// round trip under concurrent writes is tests/integration/backup-restore.test.ts.

const dirs: string[] = [];
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-backup-unit-"));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function* chunked(data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function entriesOf(data: Buffer, chunkSize = 700) {
  const found: { entry: TarEntry; content: string }[] = [];
  await readTar(chunked(data, chunkSize), async (entry, content) => {
    const parts: Buffer[] = [];
    for await (const p of content) parts.push(p);
    found.push({ entry, content: Buffer.concat(parts).toString("utf8") });
  });
  return found;
}

/** The bytes of a tar archive that `fill` adds entries to. */
async function archiveOf(fill: (pack: Pack) => Promise<void>): Promise<Buffer> {
  const pack = tarPack();
  const parts: Buffer[] = [];
  const collected = (async () => {
    for await (const part of pack as AsyncIterable<Buffer>) parts.push(part);
  })();
  try {
    await fill(pack);
  } catch (e) {
    pack.destroy(e as Error);
    await collected.catch(() => {});
    throw e;
  }
  pack.finalize();
  await collected;
  return Buffer.concat(parts);
}

/** The two zero blocks that end a tar archive. */
const TAR_END_LENGTH = 1024;

const longName = `pg/${"d".repeat(90)}/${"f".repeat(90)}`;
function sample(): Promise<Buffer> {
  return archiveOf(async (pack) => {
    await addEntry(pack, { name: "pg", type: "directory", size: 0, mode: 0o700, mtime: 0 });
    await addBuffer(pack, "pg/PG_VERSION", Buffer.from("18\n"));
    await addBuffer(pack, "pg/empty", Buffer.alloc(0));
    await addBuffer(pack, longName, Buffer.from("x".repeat(1500)));
  });
}

describe("tar", () => {
  test("what the writer writes, the reader reads back: directories, empty files, names over 100 bytes, content across chunks", async () => {
    const found = await entriesOf(await sample());
    expect(found.map((f) => [f.entry.name, f.entry.type, f.entry.size, f.content.length])).toEqual([
      ["pg", "directory", 0, 0],
      ["pg/PG_VERSION", "file", 3, 3],
      ["pg/empty", "file", 0, 0],
      [longName, "file", 1500, 1500],
    ]);
    expect(found[1].content).toBe("18\n");
    expect(found[3].content).toBe("x".repeat(1500));
  });

  test.skipIf(spawnSync("tar", ["--version"]).error)("the system's tar lists the archive", async () => {
    const file = path.join(tempDir(), "sample.tar");
    fs.writeFileSync(file, await sample());
    const listed = spawnSync("tar", ["-tf", file], { encoding: "utf8" });
    expect(listed.status).toBe(0);
    expect(listed.stdout.trim().split("\n")).toEqual(["pg/", "pg/PG_VERSION", "pg/empty", longName]);
    // as the backup file is written: gzip-compressed (`tar -tzf FILE` lists it), and extracted as written
    const gzipped = path.join(tempDir(), "sample.tar.gz");
    fs.writeFileSync(gzipped, zlib.gzipSync(fs.readFileSync(file)));
    expect(spawnSync("tar", ["-tzf", gzipped], { encoding: "utf8" }).stdout).toBe(listed.stdout);
    const into = tempDir();
    expect(spawnSync("tar", ["-xzf", gzipped, "-C", into]).status).toBe(0);
    expect(fs.readFileSync(path.join(into, "pg/PG_VERSION"), "utf8")).toBe("18\n");
    expect(fs.readFileSync(path.join(into, longName), "utf8")).toBe("x".repeat(1500));
    expect(fs.statSync(path.join(into, "pg/PG_VERSION")).mode & 0o777).toBe(0o600);
  });

  test("a damaged header, a cut archive and a missing end are errors", async () => {
    const whole = await sample();
    const damaged = Buffer.from(whole);
    damaged[600] ^= 1; // inside the second header
    await expect(entriesOf(damaged)).rejects.toThrow(/bad header/);
    await expect(entriesOf(whole.subarray(0, 1800))).rejects.toThrow(/ends early/);
    await expect(entriesOf(whole.subarray(0, whole.length - TAR_END_LENGTH))).rejects.toThrow(/ends early/);
  });

  test("an entry that is neither a file nor a directory is refused; the entry handler's own error is the one reported", async () => {
    const withLink = await archiveOf(async (pack) => {
      await addBuffer(pack, "pg/PG_VERSION", Buffer.from("18\n"));
      await new Promise<void>((resolve, reject) =>
        pack.entry({ name: "pg/link", type: "symlink", linkname: "PG_VERSION" }, (e) => (e ? reject(e) : resolve())),
      );
    });
    await expect(entriesOf(withLink)).rejects.toThrow(/unsupported tar entry type "symlink" for pg\/link/);
    const refusing = readTar(chunked(await sample(), 700), async (entry) => {
      throw new Error(`refused ${entry.name}`);
    });
    await expect(refusing).rejects.toThrow("refused pg");
  });
});

describe("copying a data directory", () => {
  test("a file that shrinks while it is copied keeps the size announced in its header, zero-padded", async () => {
    const file = path.join(tempDir(), "16384");
    fs.writeFileSync(file, Buffer.alloc(8192 * 3, 7));
    const opened = await openFile(file); // the file is open, its size taken
    fs.truncateSync(file, 8192); // VACUUM truncates the relation meanwhile
    const [found] = await entriesOf(await archiveOf((pack) => addOpenFile(pack, "pg/base/1/16384", opened!)));
    expect(found.entry.size).toBe(8192 * 3);
    expect(found.content.length).toBe(8192 * 3);
    expect(
      Buffer.from(found.content)
        .subarray(0, 8192)
        .every((b) => b === 7),
    ).toBe(true);
    expect(
      Buffer.from(found.content)
        .subarray(8192)
        .every((b) => b === 0),
    ).toBe(true);
  });

  test("a file removed before it is opened is left out, unless required", async () => {
    const gone = path.join(tempDir(), "gone");
    const archive = await archiveOf((pack) => addFile(pack, gone, "pg/gone"));
    expect(archive).toEqual(Buffer.alloc(TAR_END_LENGTH)); // nothing but the archive's end
    expect(await entriesOf(archive)).toEqual([]);
    await expect(addFile(tarPack(), gone, "pg/gone", true)).rejects.toThrow(/ENOENT/);
  });

  test("files of the running server and the content of rebuilt directories are left out; pg_control comes last, by itself", () => {
    for (const rel of [
      "postmaster.pid",
      "postmaster.opts",
      ".s.PGSQL.5432.lock",
      "backup_label",
      "tablespace_map",
      "pg_wal/000000010000000000000001",
    ]) {
      expect(copied(rel), rel).toBe(false);
    }
    for (const rel of [
      "pg_replslot/slot/state",
      "pg_stat_tmp/x",
      "pg_subtrans/0000",
      "base/pgsql_tmp/pgsql_tmp1.0",
      "global/pg_internal.init",
    ]) {
      expect(copied(rel), rel).toBe(false);
    }
    expect(copied("global/pg_control")).toBe(false);
    for (const rel of [
      "PG_VERSION",
      "pg_wal",
      "pg_subtrans",
      "base/5/1259",
      "global/1262",
      "pg_xact/0000",
      "postgresql.conf",
      "pg_hba.conf",
    ]) {
      expect(copied(rel), rel).toBe(true);
    }
  });

  test("WAL segment names from the label's start to the stop, across the 4 GiB boundary of the name's halves", () => {
    expect(walSegmentNames("0000000100000000000000FE", "000000010000000100000001", 16 * 1024 * 1024)).toEqual([
      "0000000100000000000000FE",
      "0000000100000000000000FF",
      "000000010000000100000000",
      "000000010000000100000001",
    ]);
    expect(walSegmentNames("000000010000000000000003", "000000010000000000000003", 16 * 1024 * 1024)).toEqual(["000000010000000000000003"]);
    expect(() => walSegmentNames("000000010000000000000003", "000000020000000000000004", 16 * 1024 * 1024)).toThrow(/timeline/);
    const label = "START WAL LOCATION: 0/2000028 (file 000000010000000000000002)\nCHECKPOINT LOCATION: 0/2000080\n";
    expect(startWalFile(label)).toBe("000000010000000000000002");
  });

  test("a manifest of another format or version is refused", () => {
    const ok = { format: FORMAT, version: FORMAT_VERSION, createdAt: "x", postgres: "18.1", label: "l" };
    expect(parseManifest(Buffer.from(JSON.stringify(ok)))).toEqual(ok);
    expect(() => parseManifest(Buffer.from("{}"))).toThrow(/not a Linkhop backup/);
    expect(() => parseManifest(Buffer.from(JSON.stringify({ ...ok, version: 99 })))).toThrow(/version 99/);
  });
});
