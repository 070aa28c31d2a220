import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { copied, startWalFile, walSegmentNames } from "../../lib/db/backup/data-dir.ts";
import { FORMAT, FORMAT_VERSION, parseManifest } from "../../lib/db/backup/format.ts";
import { fileEntry } from "../../lib/db/backup/take.ts";
import { readTar, TAR_END, tarFile, tarHeader, type TarEntry } from "../../lib/db/backup/tar.ts";

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

const longName = `pg/${"d".repeat(90)}/${"f".repeat(90)}`;
function sample(): Buffer {
  return Buffer.concat([
    tarHeader({ name: "pg", type: "directory", size: 0, mode: 0o700, mtime: 0 }),
    ...tarFile("pg/PG_VERSION", Buffer.from("18\n")),
    ...tarFile("pg/empty", Buffer.alloc(0)),
    ...tarFile(longName, Buffer.from("x".repeat(1500))),
    TAR_END,
  ]);
}

describe("tar", () => {
  test("what the writer writes, the reader reads back: directories, empty files, names over 100 bytes, content across chunks", async () => {
    const found = await entriesOf(sample());
    expect(found.map((f) => [f.entry.name, f.entry.type, f.entry.size, f.content.length])).toEqual([
      ["pg", "directory", 0, 0],
      ["pg/PG_VERSION", "file", 3, 3],
      ["pg/empty", "file", 0, 0],
      [longName, "file", 1500, 1500],
    ]);
    expect(found[1].content).toBe("18\n");
    expect(found[3].content).toBe("x".repeat(1500));
  });

  test.skipIf(spawnSync("tar", ["--version"]).error)("the system's tar lists the archive", () => {
    const file = path.join(tempDir(), "sample.tar");
    fs.writeFileSync(file, sample());
    const listed = spawnSync("tar", ["-tf", file], { encoding: "utf8" });
    expect(listed.status).toBe(0);
    expect(listed.stdout.trim().split("\n")).toEqual(["pg/", "pg/PG_VERSION", "pg/empty", longName]);
  });

  test("a damaged header, a cut archive and a missing end are errors", async () => {
    const damaged = sample();
    damaged[600] ^= 1; // inside the second header
    await expect(entriesOf(damaged)).rejects.toThrow(/bad header/);
    await expect(entriesOf(sample().subarray(0, 1800))).rejects.toThrow(/ends early/);
    await expect(entriesOf(sample().subarray(0, sample().length - TAR_END.length))).rejects.toThrow(/ends early/);
  });
});

describe("copying a data directory", () => {
  test("a file that shrinks while it is copied keeps the size announced in its header, zero-padded", async () => {
    const file = path.join(tempDir(), "16384");
    fs.writeFileSync(file, Buffer.alloc(8192 * 3, 7));
    const parts: Buffer[] = [];
    const entry = fileEntry(file, "pg/base/1/16384");
    parts.push((await entry.next()).value as Buffer); // the header: the file is open, its size taken
    fs.truncateSync(file, 8192); // VACUUM truncates the relation meanwhile
    for await (const p of entry) parts.push(p);
    const [found] = await entriesOf(Buffer.concat([...parts, TAR_END]));
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
    const parts: Buffer[] = [];
    for await (const p of fileEntry(gone, "pg/gone")) parts.push(p);
    expect(parts).toEqual([]);
    await expect(fileEntry(gone, "pg/gone", true).next()).rejects.toThrow(/ENOENT/);
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
