import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";

// The admin CLI's instance commands as an operator runs them (dist/admin.js): one JSON object on
// stdout, exit 0 or 1 with { error, message }.
const root = path.resolve(import.meta.dirname, "../..");
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let users: typeof import("../../lib/auth/users.ts");
let inst: typeof import("../../lib/instance/index.ts");
let dbc: typeof import("../../lib/db/client.ts");

function admin(...args: string[]): Promise<{ code: number | null; json: any; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, adminCli, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: database.url, INSTANCE_ADMINS: "env-admin@example.test" },
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const lines = out.trim().split("\n");
      resolve({ code, json: lines.length === 1 ? JSON.parse(lines[0]) : null, stdout: out });
    });
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  users = await import("../../lib/auth/users.ts");
  inst = await import("../../lib/instance/index.ts");
  dbc = await import("../../lib/db/client.ts");
});
afterAll(async () => {
  await dbc?.disconnectDb();
  await database?.drop();
});

describe("admin CLI: instance commands", () => {
  // each run is a node process that loads the Prisma client and connects: seconds each on a shared machine
  test("instance:admin grants and --revoke takes back; instance:admins lists; instance:signup sets the mode", async () => {
    const u = await users.createUser({ email: "ops@example.test", password: "password1" });
    expect(await admin("instance:admin", "--email", "OPS@example.test")).toEqual({
      code: 0,
      json: { email: "ops@example.test", granted: true, listed: false, instanceAdmin: true },
      stdout: expect.any(String),
    });
    expect(await inst.isInstanceAdmin(u.id)).toBe(true);
    const listed = await admin("instance:admins");
    expect(listed.json.admins).toEqual([{ email: "ops@example.test", granted: true, listed: false, instanceAdmin: true }]);
    expect(await admin("instance:admin", "--email", "ops@example.test", "--revoke")).toMatchObject({
      code: 0,
      json: { email: "ops@example.test", granted: false, instanceAdmin: false },
    });
    expect(await inst.isInstanceAdmin(u.id)).toBe(false);

    expect(await admin("instance:signup", "--mode", "invite")).toMatchObject({ code: 0, json: { mode: "invite", source: "instance" } });
    expect((await inst.signupSetting()).mode).toBe("invite");
    await inst.setSignupMode({ mode: "open" });
  }, 180_000);

  test("bad input: exit 1 with { error, message }, nothing changed", async () => {
    const cases: [string[], string][] = [
      [["instance:admin", "--email", "nobody@example.test"], "not_found"],
      [["instance:admin", "--email", "not-an-email"], "validation"],
      [["instance:admin"], "validation"],
      [["instance:admin", "--email", "ops@example.test", "--revoke", "yes"], "validation"],
      [["instance:signup", "--mode", "sometimes"], "validation"],
      [["instance:admin", "--email", "ops@example.test", "--role", "root"], "validation"],
    ];
    const before = await dbc.db().user.count({ where: { instanceAdmin: true } });
    const results = await Promise.all(cases.map(([args]) => admin(...args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i][0].join(" ")).toBe(1);
      expect(r.json, cases[i][0].join(" ")).toEqual({ error: cases[i][1], message: expect.any(String) });
    });
    expect(await dbc.db().user.count({ where: { instanceAdmin: true } })).toBe(before);
    expect((await inst.signupSetting()).mode).toBe("open");
  }, 180_000);

  test("instance:setup-link prints a one-time link while there is no administrator, and refuses once there is", async () => {
    await dbc.db().user.updateMany({ data: { instanceAdmin: false } });
    const made = await admin("instance:setup-link");
    expect(made.code).toBe(0);
    expect(made.json).toEqual({
      url: expect.stringMatching(/^http:\/\/localhost:3000\/setup\/[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.any(String),
    });
    const u = await users.createUser({ email: "first-operator@example.test", password: "password1" });
    await inst.redeemSetupLink({ userId: u.id, token: new URL(made.json.url).pathname.split("/").pop() });
    expect(await admin("instance:setup-link")).toMatchObject({ code: 1, json: { error: "conflict", message: inst.ADMIN_EXISTS_MESSAGE } });
  }, 180_000);
});
