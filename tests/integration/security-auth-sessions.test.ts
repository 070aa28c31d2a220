import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { signInCookie } from "../support/session.ts";

// Sessions end for real (lib/auth/session.ts): a session cookie copied before sign-out, or before
// a password change, no longer opens the workspace. Real server, real HTTP.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let users: typeof import("../../lib/auth/users.ts");
let account: typeof import("../../lib/auth/account.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  users = await import("../../lib/auth/users.ts");
  account = await import("../../lib/auth/account.ts");
  app = await startApp(database.url);
});

afterAll(async () => {
  await app?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
async function person() {
  const email = `sess-${++n}@example.test`;
  const r = await users.signUp({ email, password: "password1" });
  return { email, slug: r.workspace.slug, userId: r.user.id };
}

/** What the workspace page answers for a cookie: 200 when it opens, else where it sends the visitor. */
async function openWorkspace(slug: string, cookie: string) {
  const res = await fetch(`${app.url}/w/${slug}`, { headers: { cookie }, redirect: "manual" });
  return { status: res.status, location: res.headers.get("location") };
}

async function sessionUser(cookie: string) {
  const res = await fetch(`${app.url}/api/auth/session`, { headers: { cookie } });
  return ((await res.json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
}

/** Signs out through Auth.js's endpoint, as the browser's sign-out does. */
async function signOut(cookie: string) {
  const csrfRes = await fetch(`${app.url}/api/auth/csrf`, { headers: { cookie } });
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const csrfCookie = (csrfRes.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]);
  const res = await fetch(`${app.url}/api/auth/signout`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: [cookie, ...csrfCookie].join("; ") },
    body: new URLSearchParams({ csrfToken, callbackUrl: `${app.url}/login` }),
  });
  expect([302, 303]).toContain(res.status);
}

describe("sign-out", () => {
  test("a cookie copied before sign-out no longer opens the workspace; signing in again works", async () => {
    const p = await person();
    const cookie = await signInCookie(app.url, p.email, "password1");
    const copied = cookie;
    expect(await openWorkspace(p.slug, copied)).toEqual({ status: 200, location: null });
    expect(await sessionUser(copied)).toBe(p.email);

    await signOut(cookie);

    const replay = await openWorkspace(p.slug, copied);
    expect(replay.status).toBe(307);
    expect(replay.location).toContain("/login");
    expect(await sessionUser(copied)).toBeNull();

    const again = await signInCookie(app.url, p.email, "password1");
    expect(await openWorkspace(p.slug, again)).toEqual({ status: 200, location: null });
    // The old copy stays dead after the new sign-in.
    expect((await openWorkspace(p.slug, copied)).status).toBe(307);
  });

  test("a stale cookie cannot sign the user out of a newer session", async () => {
    const p = await person();
    const old = await signInCookie(app.url, p.email, "password1");
    await signOut(old);
    const fresh = await signInCookie(app.url, p.email, "password1");
    // Signing out with the stale cookie is answered like any sign-out (a redirect) and ends nothing.
    await signOut(old);
    expect(await openWorkspace(p.slug, fresh)).toEqual({ status: 200, location: null });
  });

  test("another user's sessions are not touched", async () => {
    const a = await person();
    const b = await person();
    const cookieA = await signInCookie(app.url, a.email, "password1");
    const cookieB = await signInCookie(app.url, b.email, "password1");
    await signOut(cookieA);
    expect(await openWorkspace(b.slug, cookieB)).toEqual({ status: 200, location: null });
  });
});

describe("password change", () => {
  test("ends every existing session; only the new password signs in", async () => {
    const p = await person();
    const laptop = await signInCookie(app.url, p.email, "password1");
    const phone = await signInCookie(app.url, p.email, "password1");
    expect((await openWorkspace(p.slug, phone)).status).toBe(200);

    await expect(account.changePassword(p.userId, { current: "wrong-one", next: "a new password" })).rejects.toMatchObject({
      code: "validation",
    });
    expect((await openWorkspace(p.slug, phone)).status).toBe(200);

    await account.changePassword(p.userId, { current: "password1", next: "a new password" });
    for (const cookie of [laptop, phone]) expect((await openWorkspace(p.slug, cookie)).status).toBe(307);
    await expect(signInCookie(app.url, p.email, "password1")).rejects.toThrow(/sign-in failed/);
    const fresh = await signInCookie(app.url, p.email, "a new password");
    expect(await openWorkspace(p.slug, fresh)).toEqual({ status: 200, location: null });
  });

  test("guessing the current password through the change form hits the sign-in limit", async () => {
    const p = await person();
    for (let i = 0; i < 10; i++) {
      await expect(
        account.changePassword(p.userId, { current: `guess-${i}`, next: "a new password" }, "203.0.113.50"),
      ).rejects.toMatchObject({ code: "validation" });
    }
    await expect(account.changePassword(p.userId, { current: "password1", next: "a new password" }, "203.0.113.50")).rejects.toMatchObject({
      code: "rate_limit",
      message: "Too many attempts. Try again in 15 minutes.",
    });
    // The same account and address are refused at the sign-in too (one shared count), not elsewhere.
    const cookie = await signInCookie(app.url, p.email, "password1");
    expect((await openWorkspace(p.slug, cookie)).status).toBe(200);
  });
});
