import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase } from "../support/db.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";

// The admin CLI as a user runs it: one JSON object on stdout, exit 0 or 1.
const root = path.resolve(import.meta.dirname, "../..");
let database: Awaited<ReturnType<typeof createTestDatabase>>;

type CliRun = { code: number | null; json: any; stdout: string; stderr: string };

function runCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, adminCli, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    // "close": the process has exited and its output streams are read to the end
    child.on("close", (code) => {
      let json: unknown = null;
      try {
        json = JSON.parse(out.trim());
      } catch {}
      resolve({ code, json, stdout: out, stderr: err });
    });
  });
}

/** Runs the CLI to the end, then checks it printed exactly one JSON object. */
async function admin(...args: string[]): Promise<CliRun> {
  const r = await runCli(args);
  expect(r.stdout.trim().split("\n"), `one JSON object on stdout for ${args.join(" ")}, got: ${r.stdout}`).toHaveLength(1);
  expect(r.json, `stdout is JSON for ${args.join(" ")}: ${r.stdout}`).not.toBeNull();
  return r;
}

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe("admin CLI", () => {
  // Seven CLI runs one after another, each a new node process that loads the Prisma
  // client and connects: about 3.5 s each on an idle 2-core machine, 6 to 9 s each when the
  // cores are shared with many other test processes (60 s was exceeded there).
  test("creates a user and a workspace, changes plan, deactivates and activates", async () => {
    const user = await admin("user:create", "--email", "Cli@Example.com", "--password", "password1", "--name", "Cli");
    expect(user).toMatchObject({ code: 0, json: { email: "cli@example.com" } });
    expect(typeof user.json.id).toBe("number");

    const ws = await admin("workspace:create", "--slug", "cli-co", "--name", "Cli Co", "--owner", "cli@example.com", "--plan", "team");
    expect(ws).toMatchObject({ code: 0, json: { slug: "cli-co", plan: "team" } });
    expect(typeof ws.json.id).toBe("number");

    expect(await admin("workspace:plan", "--slug", "cli-co", "--plan", "business")).toMatchObject({
      code: 0,
      json: { slug: "cli-co", plan: "business" },
    });
    expect(await admin("workspace:deactivate", "--slug", "cli-co")).toMatchObject({ code: 0, json: { slug: "cli-co", active: false } });
    expect(await admin("workspace:activate", "--slug", "cli-co")).toMatchObject({ code: 0, json: { slug: "cli-co", active: true } });

    await admin("user:create", "--email", "second@example.com", "--password", "password1");
    const member = await admin("member:add", "--slug", "cli-co", "--email", "second@example.com", "--role", "admin");
    expect(member).toMatchObject({ code: 0, json: { member: { email: "second@example.com", role: "admin", via: "added" } } });
    expect(typeof member.json.member.id).toBe("number");
  }, 180_000);

  test("bad input: exit 1 with { error, message } and nothing changed", async () => {
    // Its own data, written directly (the CLI's happy path is the test above): an owner, a
    // workspace on business, and an admin member.
    const id = Math.random().toString(36).slice(2, 8);
    const owner = `owner-${id}@example.com`;
    const second = `second-${id}@example.com`;
    const slug = `bad-${id}`;
    const sql = async (text: string, values: unknown[] = []) => {
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      try {
        return await c.query(text, values);
      } finally {
        await c.end();
      }
    };
    await sql(
      `with o as (insert into "User" (email) values ($1) returning id),
            s as (insert into "User" (email) values ($2) returning id),
            w as (insert into "Workspace" (slug, name, plan) values ($3, 'Bad Co', 'business') returning id)
       insert into "Membership" ("workspaceId", "userId", role)
       select w.id, o.id, 'owner'::"Role" from w, o union all select w.id, s.id, 'admin'::"Role" from w, s`,
      [owner, second, slug],
    );

    const state = async () => {
      const r = await sql(
        `select (select count(*) from "User")::int users, (select count(*) from "Workspace")::int workspaces,
                (select count(*) from "Membership")::int memberships,
                (select plan from "Workspace" where slug = $1) plan,
                (select role::text from "Membership" m join "User" u on u.id = m."userId" join "Workspace" w on w.id = m."workspaceId"
                  where w.slug = $1 and u.email = $2) role`,
        [slug, second],
      );
      return r.rows[0];
    };
    const before = await state();
    expect(before).toMatchObject({ plan: "business", role: "admin" });

    const cases = [
      ["user:create", "--email", "nope", "--password", "password1"],
      ["user:create", "--email", owner, "--password", "password1"],
      ["user:create", "--email", `x-${id}@example.com`],
      ["workspace:create", "--slug", "Bad Slug!", "--name", "X", "--owner", owner],
      ["workspace:create", "--slug", `ghost-${id}`, "--name", "X", "--owner", `ghost-${id}@example.com`],
      ["workspace:create", "--slug", slug, "--name", "X", "--owner", owner],
      ["workspace:create", "--slug", `other-${id}`, "--name", "X", "--owner", owner, "--plan", "platinum"],
      ["workspace:plan", "--slug", slug, "--plan", "platinum"],
      ["workspace:plan", "--slug", `missing-${id}`, "--plan", "pro"],
      ["member:add", "--slug", slug, "--email", second, "--role", "admin"],
      ["member:add", "--slug", slug, "--email", owner, "--role", "king"],
      ["member:add", "--slug", slug, "--email", second, "--role", "member", "--extra", "1"],
      ["no:such-command"],
    ];
    const results = await Promise.all(cases.map((c) => admin(...c)));
    results.forEach((r, i) => {
      expect(r.code, cases[i].join(" ")).toBe(1);
      expect(Object.keys(r.json).sort(), cases[i].join(" ")).toEqual(["error", "message"]);
      expect(typeof r.json.message).toBe("string");
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack traces for expected failures
    });
    expect(await state()).toEqual(before);
  }, 120_000);
});
