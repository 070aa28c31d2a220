import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { startEmbeddedPostgres } from "../../lib/db/embedded.ts";
import { applyMigrations, MigrationError } from "../../lib/db/migrate.ts";
import { createTestDatabase } from "../support/db.ts";

const root = path.resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
function tempDir() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-pg-"));
  dirs.push(d);
  return d;
}
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

async function query(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

describe("embedded PostgreSQL", () => {
  test("a postmaster left by a killed process is adopted, and a stale pid file is cleaned up", async () => {
    const dir = tempDir();
    // A separate process starts the server and is then SIGKILLed, leaving postgres running.
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(path.join(root, "lib/db/embedded.ts"))});
      await startEmbeddedPostgres(${JSON.stringify(dir)});
      console.log("up");
      setInterval(() => {}, 1000);
    `,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => child.stdout!.on("data", (d) => String(d).includes("up") && resolve()));
    // Wait until the child is reaped: until then it is a zombie and still answers kill(pid, 0).
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    const pidBefore = Number(fs.readFileSync(path.join(dir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);

    const adopted = await startEmbeddedPostgres(dir);
    expect(adopted.owned).toBe(true);
    expect(await query(adopted.url, "select 1 as ok")).toEqual([{ ok: 1 }]);
    expect(Number(fs.readFileSync(path.join(dir, "pg", "postmaster.pid"), "utf8").split("\n")[0])).toBe(pidBefore);
    await adopted.stop();
    expect(fs.existsSync(path.join(dir, "pg", "postmaster.pid"))).toBe(false);

    // A pid file whose process is gone (e.g. after a reboot) must not block the next start.
    fs.writeFileSync(path.join(dir, "pg", "postmaster.pid"), `999999\n${dir}/pg\n0\n5432\n`);
    const fresh = await startEmbeddedPostgres(dir);
    expect(await query(fresh.url, "select 2 as ok")).toEqual([{ ok: 2 }]);
    // A second process (the admin CLI while the app runs) shares it and does not stop it.
    const second = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(path.join(root, "lib/db/embedded.ts"))});
      const pg = await startEmbeddedPostgres(${JSON.stringify(dir)});
      await pg.stop();
      console.log(JSON.stringify({ owned: pg.owned }));
    `,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    second.stdout!.on("data", (d) => (out += d));
    // "close", not "exit": stdout may still hold data when the process has exited.
    expect(await new Promise((resolve) => second.on("close", resolve))).toBe(0);
    expect(JSON.parse(out)).toEqual({ owned: false });
    expect(await query(fresh.url, "select 3 as ok")).toEqual([{ ok: 3 }]);
    await fresh.stop();
  });
});

describe("migrations at start", () => {
  test("applies pending migrations once, records them as Prisma does, and refuses after a failure", async () => {
    const database = await createTestDatabase();
    try {
      const dir = tempDir();
      fs.mkdirSync(path.join(dir, "20260101000000_one"));
      fs.writeFileSync(path.join(dir, "20260101000000_one", "migration.sql"), "create table extra_one (id int);");
      expect(await applyMigrations(database.url, dir)).toEqual(["20260101000000_one"]);
      expect(await applyMigrations(database.url, dir)).toEqual([]);
      const rows = await query(
        database.url,
        `select migration_name, checksum, finished_at is not null as done from "_prisma_migrations" where migration_name like '202601%'`,
      );
      expect(rows).toEqual([{ migration_name: "20260101000000_one", checksum: expect.stringMatching(/^[0-9a-f]{64}$/), done: true }]);

      fs.mkdirSync(path.join(dir, "20260102000000_broken"));
      fs.writeFileSync(
        path.join(dir, "20260102000000_broken", "migration.sql"),
        "create table extra_two (id int); select no_such_function();",
      );
      await expect(applyMigrations(database.url, dir)).rejects.toBeInstanceOf(MigrationError);
      // The failed migration left nothing half-done, and the next start refuses to serve.
      expect(await query(database.url, "select to_regclass('extra_two') as t")).toEqual([{ t: null }]);
      await expect(applyMigrations(database.url, dir)).rejects.toThrow(/failed earlier/);
    } finally {
      await database.drop();
    }
  });
});
