import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase } from "../support/db.ts";

// The admin CLI as a user runs it: one JSON object on stdout, exit 0 or 1.
const root = path.resolve(import.meta.dirname, "../..");
let database: Awaited<ReturnType<typeof createTestDatabase>>;

function admin(...args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "lib/admin/cli.ts", ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      const lines = out.trim().split("\n");
      let json: unknown = null;
      try {
        json = JSON.parse(lines[lines.length - 1]);
      } catch {}
      expect(lines.length, `one JSON object on stdout, got: ${out}`).toBe(1);
      resolve({ code, json, stderr: err });
    });
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe("admin CLI", () => {
  test("creates a user and a workspace, changes plan, deactivates and activates", async () => {
    const user = await admin("user:create", "--email", "Cli@Example.com", "--password", "password1", "--name", "Cli");
    expect(user).toMatchObject({ code: 0, json: { email: "cli@example.com" } });
    expect(typeof user.json.id).toBe("number");

    const ws = await admin("workspace:create", "--slug", "cli-co", "--name", "Cli Co", "--owner", "cli@example.com", "--plan", "team");
    expect(ws).toMatchObject({ code: 0, json: { slug: "cli-co", plan: "team" } });
    expect(typeof ws.json.id).toBe("number");

    expect(await admin("workspace:plan", "--slug", "cli-co", "--plan", "business")).toMatchObject({ code: 0, json: { slug: "cli-co", plan: "business" } });
    expect(await admin("workspace:deactivate", "--slug", "cli-co")).toMatchObject({ code: 0, json: { slug: "cli-co", active: false } });
    expect(await admin("workspace:activate", "--slug", "cli-co")).toMatchObject({ code: 0, json: { slug: "cli-co", active: true } });

    await admin("user:create", "--email", "second@example.com", "--password", "password1");
    const member = await admin("member:add", "--slug", "cli-co", "--email", "second@example.com", "--role", "admin");
    expect(member).toMatchObject({ code: 0, json: { member: { email: "second@example.com", role: "admin", via: "added" } } });
    expect(typeof member.json.member.id).toBe("number");
  });

  test("bad input: exit 1 with { error, message } and nothing changed", async () => {
    const cases = [
      ["user:create", "--email", "nope", "--password", "password1"],
      ["user:create", "--email", "cli@example.com", "--password", "password1"],
      ["user:create", "--email", "x@example.com"],
      ["workspace:create", "--slug", "Bad Slug!", "--name", "X", "--owner", "cli@example.com"],
      ["workspace:create", "--slug", "ghost", "--name", "X", "--owner", "ghost@example.com"],
      ["workspace:create", "--slug", "cli-co", "--name", "X", "--owner", "cli@example.com"],
      ["workspace:create", "--slug", "other", "--name", "X", "--owner", "cli@example.com", "--plan", "platinum"],
      ["workspace:plan", "--slug", "cli-co", "--plan", "platinum"],
      ["workspace:plan", "--slug", "missing", "--plan", "pro"],
      ["member:add", "--slug", "cli-co", "--email", "second@example.com", "--role", "admin"],
      ["member:add", "--slug", "cli-co", "--email", "cli@example.com", "--role", "king"],
      ["member:add", "--slug", "cli-co", "--email", "second@example.com", "--role", "member", "--extra", "1"],
      ["no:such-command"],
    ];
    const results = await Promise.all(cases.map((c) => admin(...c)));
    results.forEach((r, i) => {
      expect(r.code, cases[i].join(" ")).toBe(1);
      expect(Object.keys(r.json).sort()).toEqual(["error", "message"]);
      expect(typeof r.json.message).toBe("string");
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack traces for expected failures
    });
    const pg = await import("pg");
    const c = new pg.default.Client({ connectionString: database.url });
    await c.connect();
    const counts = await c.query(`select (select count(*) from "User")::int u, (select count(*) from "Workspace")::int w, (select plan from "Workspace" where slug='cli-co') plan`);
    await c.end();
    expect(counts.rows[0]).toEqual({ u: 2, w: 1, plan: "business" });
  });
});
