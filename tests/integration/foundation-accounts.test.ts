import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { signInCookie } from "../support/session.ts";

// Sign-up, duplicate emails and role enforcement, against real PostgreSQL and the real server.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let svc: typeof import("../../lib/workspaces/index.ts");
let accounts: typeof import("../../lib/auth/users.ts");
let members: typeof import("../../lib/members/index.ts");
let db: typeof import("../../lib/db/client.ts").db;

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  svc = await import("../../lib/workspaces/index.ts");
  accounts = await import("../../lib/auth/users.ts");
  members = await import("../../lib/members/index.ts");
  db = (await import("../../lib/db/client.ts")).db;
  app = await startApp(database.url);
});

afterAll(async () => {
  await app?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("sign-up", () => {
  test("creates the user, a free workspace and the owner membership together", async () => {
    const r = await accounts.signUp({ email: "Ada@Example.com", password: "correct horse", name: "Ada" });
    const user = await db().user.findUniqueOrThrow({
      where: { id: r.user.id },
      include: { memberships: { include: { workspace: true } } },
    });
    expect(user.email).toBe("ada@example.com");
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(user.passwordHash).not.toContain("correct horse");
    expect(user.memberships).toHaveLength(1);
    expect(user.memberships[0].role).toBe("owner");
    expect(user.memberships[0].workspace.plan).toBe("free");
    expect(user.memberships[0].workspace.slug).toBe(r.workspace.slug);
  });

  test("a duplicate email is refused cleanly and leaves nothing behind", async () => {
    const before = await db().workspace.count();
    await expect(accounts.signUp({ email: "ada@example.com", password: "another one" })).rejects.toMatchObject({ code: "conflict" });
    // Parallel sign-ups with one new email: exactly one account, one workspace, one membership.
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => accounts.signUp({ email: "race@example.com", password: "password1" })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "conflict" });
    expect(await db().user.count({ where: { email: "race@example.com" } })).toBe(1);
    expect(await db().workspace.count()).toBe(before + 1);
  });

  test("bad input is a validation error, not a crash", async () => {
    await expect(accounts.signUp({ email: "not-an-email", password: "password1" })).rejects.toMatchObject({ code: "validation" });
    await expect(accounts.signUp({ email: "x@example.com", password: "short" })).rejects.toMatchObject({ code: "validation" });
    await expect(accounts.signUp(null)).rejects.toMatchObject({ code: "validation" });
  });

  test("the sign-up page answers bad input with a message on the page", async () => {
    // Submitted as a browser without JavaScript would: the form's own fields (Next's action
    // reference among them) plus the user's input, as multipart form data, to the page.
    const page = await fetch(`${app.url}/signup`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const form = /<form[^>]*>([\s\S]*?)<\/form>/.exec(html)?.[1] ?? "";
    const body = new FormData();
    for (const input of form.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      if (name) body.append(decodeEntities(name), decodeEntities(/value="([^"]*)"/.exec(input[0])?.[1] ?? ""));
    }
    expect(
      [...body.keys()].some((k) => k.startsWith("$ACTION")),
      `the form carries its action: ${form}`,
    ).toBe(true);
    const email = "not-an-email";
    body.append("email", email);
    body.append("password", "password1");
    const users = await db().user.count();

    const answer = await fetch(`${app.url}/signup`, { method: "POST", body, redirect: "manual" });
    expect(answer.status).toBe(200);
    const shown = await answer.text();
    // the service's own message for that input, in the page's alert, with the email kept
    const expected = await accounts.signUp({ email, password: "password1" }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(expected).not.toBe("");
    const alert = /<div role="alert"[^>]*>([\s\S]*?)<\/div>/.exec(shown)?.[1];
    expect(alert && decodeEntities(alert)).toBe(expected);
    expect(shown).toMatch(/<input[^>]*name="email"[^>]*value="not-an-email"/);
    expect(await db().user.count()).toBe(users);
  });
});

describe("roles", () => {
  test("a member cannot do an admin's action; a non-member gets 404", async () => {
    const owner = await accounts.signUp({ email: "owner@example.com", password: "password1" });
    const member = await accounts.createUser({ email: "member@example.com", password: "password1" });
    await accounts.createUser({ email: "stranger@example.com", password: "password1" });
    await members.addMember({ slug: owner.workspace.slug, email: "member@example.com", role: "member" });

    await expect(svc.renameWorkspace(member.id, owner.workspace.slug, "Hijacked")).rejects.toMatchObject({ code: "forbidden" });
    await expect(svc.renameWorkspace(owner.user.id, owner.workspace.slug, "Renamed")).resolves.toMatchObject({ name: "Renamed" });

    const memberCookie = await signInCookie(app.url, "member@example.com", "password1");
    const strangerCookie = await signInCookie(app.url, "stranger@example.com", "password1");
    const asMember = await fetch(`${app.url}/w/${owner.workspace.slug}/settings`, { headers: { cookie: memberCookie } });
    expect(asMember.status).toBe(200);
    const html = await asMember.text();
    expect(html).toContain("Only owners and admins can rename the workspace.");
    const asStranger = await fetch(`${app.url}/w/${owner.workspace.slug}`, { headers: { cookie: strangerCookie } });
    expect(asStranger.status).toBe(404);
    const signedOut = await fetch(`${app.url}/w/${owner.workspace.slug}`, { redirect: "manual" });
    expect([302, 303, 307]).toContain(signedOut.status);
    expect(signedOut.headers.get("location")).toContain("/login");
  });

  test("wrong password does not sign in", async () => {
    // an account of its own, which signs in with the right password
    await accounts.createUser({ email: "wrongpass@example.com", password: "the right one" });
    expect(await signInCookie(app.url, "wrongpass@example.com", "the right one")).toMatch(/session-token=/);
    await expect(signInCookie(app.url, "wrongpass@example.com", "the wrong one")).rejects.toThrow(/sign-in failed/);
    await expect(signInCookie(app.url, "wrongpass@example.com", "THE RIGHT ONE")).rejects.toThrow(/sign-in failed/);
  });
});

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
