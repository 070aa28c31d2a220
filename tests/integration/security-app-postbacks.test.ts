import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { signInCookie } from "../support/session.ts";
import { submitForm } from "./security-auth-forms.ts";

// Forms whose action answers with a message (useActionState) posted as a browser without
// JavaScript does: React renders the page again with the answer. With a value bound to the action
// (`action.bind(null, slug)`) that render started over without end, holding a core and growing the
// heap until the client gave up (lib/actions/form.ts); now each answers like any page.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let inv: typeof import("../../lib/members/invitations.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  inv = await import("../../lib/members/invitations.ts");
  app = await startApp(database.url);
});

afterAll(async () => {
  await app?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
/** Generous: a render answers in well under a second; the looping one never answered. */
const DEADLINE_MS = 15_000;

async function owner() {
  const user = await users.createUser({ email: `pb-${++n}@example.test`, password: "password1" });
  const slug = `pb-${n}`;
  await ws.createWorkspace({ slug, name: `Postback ${n}`, owner: user.email, plan: "team" });
  return { ...user, slug, cookie: await signInCookie(app.url, user.email, "password1") };
}

async function post(path: string, fields: Record<string, string>, containing: string, cookie?: string) {
  const headers = cookie ? { cookie } : undefined;
  return Promise.race([
    submitForm(app.url, path, fields, { headers, containing }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${path}: no answer in ${DEADLINE_MS} ms`)), DEADLINE_MS).unref()),
  ]);
}

test("the invitation page's sign-in with a wrong password answers with the message", async () => {
  const o = await owner();
  const invitee = await users.createUser({ email: `pb-invitee-${++n}@example.test`, password: "password1" });
  const token = (await inv.inviteMember(o.id, o.slug, { email: invitee.email, role: "member" })).url.split("/invite/")[1];
  const r = await post(`/invite/${token}?mode=signin`, { password: "not the password" }, "Sign in and join");
  expect(r.status).toBe(200);
  expect(r.html).toContain("Wrong password.");
});

test("renaming a workspace to an empty name answers with the message", async () => {
  const o = await owner();
  const r = await post(`/w/${o.slug}/settings`, { name: "" }, "Workspace name", o.cookie);
  expect(r.status).toBe(200);
  expect(r.html).toContain("Enter a name.");
});

test("creating an API key with a bad expiry answers with the message", async () => {
  const o = await owner();
  const r = await post(`/w/${o.slug}/settings/api-keys`, { name: "k", expiresInDays: "-3" }, "Expires after", o.cookie);
  expect(r.status).toBe(200);
  expect(r.html).toMatch(/role="alert"[^>]*>[^<]+/);
});
