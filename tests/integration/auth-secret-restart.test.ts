import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { signInCookie } from "../support/session.ts";

// Without AUTH_SECRET, server.ts generates one into LINKHOP_DATA_DIR/auth-secret on the first start
// and reads it back on every later one, so sessions (signed with it) survive a restart. Real
// processes on one database and one data directory; a start on another data directory (another
// generated secret) shows that the cookie does depend on the secret that was kept.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let work: string;
const apps: RunningApp[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-auth-secret-"));
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The app as `npm start` runs it with no AUTH_SECRET, keeping its files under `dataDir`. */
async function startWithoutSecret(dataDir: string): Promise<RunningApp> {
  const app = await startApp(database.url, { AUTH_SECRET: undefined, LINKHOP_DATA_DIR: dataDir });
  apps.push(app);
  return app;
}

/** Whom the app takes the cookie for (Auth.js's session endpoint), or null. */
async function sessionUser(app: RunningApp, cookie: string): Promise<string | null> {
  const res = await fetch(`${app.url}/api/auth/session`, { headers: { cookie } });
  return ((await res.json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
}

/** What the workspace page answers for the cookie: 200 when it opens, else where it sends the visitor. */
async function openWorkspace(app: RunningApp, slug: string, cookie: string) {
  const res = await fetch(`${app.url}/w/${slug}`, { headers: { cookie }, redirect: "manual" });
  return { status: res.status, location: res.headers.get("location") };
}

describe("the generated AUTH_SECRET", () => {
  it("is written once to the data directory and kept across a restart: a session cookie still works", async () => {
    const dataDir = path.join(work, "data");
    const secretFile = path.join(dataDir, "auth-secret");
    const first = await startWithoutSecret(dataDir);
    const secret = fs.readFileSync(secretFile, "utf8");
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(secretFile).mode & 0o777).toBe(0o600);

    const { signUp } = await import("../../lib/auth/users.ts");
    const email = "restart@example.test";
    const { workspace } = await signUp({ email, password: "password1" });
    const cookie = await signInCookie(first.url, email, "password1");
    expect(await sessionUser(first, cookie)).toBe(email);
    expect(await openWorkspace(first, workspace.slug, cookie)).toEqual({ status: 200, location: null });
    expect(await first.stop()).toBe(0);

    const second = await startWithoutSecret(dataDir);
    expect(fs.readFileSync(secretFile, "utf8")).toBe(secret);
    expect(await sessionUser(second, cookie)).toBe(email);
    expect(await openWorkspace(second, workspace.slug, cookie)).toEqual({ status: 200, location: null });

    // the same cookie at a process with another generated secret: not a session
    const other = await startWithoutSecret(path.join(work, "other-data"));
    expect(fs.readFileSync(path.join(work, "other-data", "auth-secret"), "utf8")).not.toBe(secret);
    expect(await sessionUser(other, cookie)).toBeNull();
    const refused = await openWorkspace(other, workspace.slug, cookie);
    expect(refused.status).not.toBe(200);
    expect(refused.location).toMatch(/\/login/);
  });
});
