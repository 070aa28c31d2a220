import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { RunningApp } from "../support/app.ts";
import { AUTH_TEST_APP_URL, startAuthTestApp, type AuthTestEnv } from "../support/auth-app.ts";
import type { SmtpServer } from "../support/smtp.ts";
import { signInCookie } from "../support/session.ts";
import { submitForm } from "./security-auth-forms.ts";

// The Account page's change of email, "Sign out everywhere" and "Delete account"
// (lib/auth/email-change.ts, lib/auth/delete-account.ts, lib/auth/reauth.ts) against the running
// server, its forms posted as a browser without JavaScript does, and a real SMTP server.
let env: AuthTestEnv;
let smtp: SmtpServer;
let app: RunningApp;
let users: typeof import("../../lib/auth/users.ts");
let members: typeof import("../../lib/members/index.ts");
let emailChange: typeof import("../../lib/auth/email-change.ts");
let reauth: typeof import("../../lib/auth/reauth.ts");
let clock: typeof import("../../lib/clock.ts");
let db: typeof import("../../lib/db/client.ts").db;

const APP_URL = AUTH_TEST_APP_URL;

beforeAll(async () => {
  env = await startAuthTestApp();
  ({ app, smtp } = env);
  users = await import("../../lib/auth/users.ts");
  members = await import("../../lib/members/index.ts");
  emailChange = await import("../../lib/auth/email-change.ts");
  reauth = await import("../../lib/auth/reauth.ts");
  clock = await import("../../lib/clock.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterEach(() => clock.setClock(null));

afterAll(async () => {
  await env?.stop();
});

let n = 0;
const fresh = (label: string) => `${label}-${++n}@example.test`;

/** An account (with its own workspace, as sign-up makes) and two sessions of it. */
async function person(label: string, name = `${label} ${n + 1}`) {
  const email = fresh(label);
  const r = await users.signUp({ email, password: "password1", name });
  return { email, userId: r.user.id, slug: r.workspace.slug, workspaceId: r.workspace.id };
}

/** 200 when the cookie opens the workspace, else the status (307 to the login page). */
async function opens(slug: string, cookie: string) {
  const res = await fetch(`${app.url}/w/${slug}`, { headers: { cookie }, redirect: "manual" });
  return res.status === 200 ? 200 : `${res.status} ${res.headers.get("location")}`;
}

async function canSignIn(email: string, password = "password1") {
  return signInCookie(app.url, email, password).then(
    () => true,
    () => false,
  );
}

/** A form of the Account page, posted where /account leads (the page inside the account's workspace). */
async function accountForm(cookie: string, containing: string, fields: Record<string, string>) {
  const res = await fetch(`${app.url}/account`, { headers: { cookie }, redirect: "manual" });
  const target = res.status === 307 ? new URL(res.headers.get("location")!, app.url) : null;
  return submitForm(app.url, target ? target.pathname + target.search : "/account", fields, { headers: { cookie }, containing });
}

/** The confirmation link of the last email-change mail to `to`, as a path of the app. */
async function changeLinkPath(to: string) {
  const mail = await smtp.waitFor((m) => m.to.includes(to) && m.subject === "Confirm your new email address for Linkhop");
  const url = /https?:\/\/\S+\/account\/email\/\S+/.exec(mail.text)![0];
  expect(url.startsWith(`${APP_URL}/account/email/`)).toBe(true);
  return new URL(url).pathname;
}

const mailsTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to));

describe("change of email", () => {
  test("nothing changes until the new address's link is used; then the new address signs in, the old does not, sessions end", async () => {
    const p = await person("mover");
    const newEmail = fresh("moved");
    const cookie = await signInCookie(app.url, p.email, "password1");
    const other = await signInCookie(app.url, p.email, "password1");

    const wrong = await accountForm(cookie, "Send confirmation link", { email: newEmail, password: "not-my-password" });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain("The current password is wrong.");
    expect(mailsTo(newEmail)).toHaveLength(0);

    const asked = await accountForm(cookie, "Send confirmation link", { email: newEmail.toUpperCase(), password: "password1" });
    expect(asked.status).toBe(200);
    expect(asked.html).toContain("We sent a link to");
    const path = await changeLinkPath(newEmail);
    const requested = await smtp.waitFor(
      (m) => m.to.includes(p.email) && m.subject === "A change of your Linkhop email address was requested",
    );
    expect(requested.text).toContain(newEmail);
    expect(requested.html).toBeTruthy();

    // Asked, mailed, not used: the account is as it was, and so are its sessions.
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).email).toBe(p.email);
    expect(await opens(p.slug, other)).toBe(200);
    const page = await fetch(`${app.url}${path}`, { headers: { cookie } });
    expect(await page.text()).toContain(newEmail);
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).email).toBe(p.email);
    expect(await canSignIn(p.email)).toBe(true);

    // The link proves the new mailbox, not the account: whoever reads it (say, the owner of a
    // mistyped address) cannot confirm without the account's session, signed out or as someone else.
    const stranger = await person("reader");
    const strangerCookie = await signInCookie(app.url, stranger.email, "password1");
    for (const headers of [undefined, { cookie: strangerCookie }]) {
      expect(await (await fetch(`${app.url}${path}`, { headers })).text()).toContain("Sign in to confirm");
      expect(await emailChange.confirmEmailChange(path.split("/").pop(), headers ? stranger.userId : null)).toEqual({ state: "sign_in" });
    }
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).email).toBe(p.email);

    const confirmed = await submitForm(app.url, path, {}, { headers: { cookie }, containing: "Confirm new address" });
    expect(confirmed.status).toBe(303);
    expect(confirmed.location).toContain("/login?emailChanged=1");
    const after = await db().user.findUniqueOrThrow({ where: { id: p.userId } });
    expect(after.email).toBe(newEmail);
    expect(after.emailVerifiedAt).not.toBeNull();

    const done = await smtp.waitFor((m) => m.to.includes(p.email) && m.subject === "Your Linkhop email address was changed");
    expect(done.text).toContain(newEmail);
    expect(done.html).toBeTruthy();

    expect(await opens(p.slug, cookie)).toMatch(/^307 .*\/login/);
    expect(await opens(p.slug, other)).toMatch(/^307 .*\/login/);
    expect(await canSignIn(p.email)).toBe(false);
    const fresh2 = await signInCookie(app.url, newEmail, "password1");
    expect(await opens(p.slug, fresh2)).toBe(200);

    // The link works once: the page says so, and the service refuses it.
    expect(await (await fetch(`${app.url}${path}`, { headers: { cookie: fresh2 } })).text()).toContain("This link is not valid");
    expect(await emailChange.confirmEmailChange(path.split("/").pop(), p.userId)).toEqual({ state: "invalid" });
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).sessionVersion).toBe(after.sessionVersion);
  });

  test("an address another account uses is refused without naming that account, and nothing is mailed to it", async () => {
    const p = await person("asker");
    const owner = await person("holder", "Zebulon Secret");
    const cookie = await signInCookie(app.url, p.email, "password1");
    const r = await accountForm(cookie, "Send confirmation link", { email: owner.email, password: "password1" });
    expect(r.status).toBe(200);
    expect(r.html).toContain("That address is already used by another account.");
    // The answer names nothing of the other account: not its name, not its workspace.
    expect(r.html).not.toContain("Zebulon");
    expect(r.html).not.toContain(`/w/${owner.slug}`);
    expect(mailsTo(owner.email)).toHaveLength(0);
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).email).toBe(p.email);
  });

  test("an address taken between the request and the link is refused when the link is used; nothing changes", async () => {
    const p = await person("racer");
    const target = fresh("contested");
    const cookie = await signInCookie(app.url, p.email, "password1");
    await accountForm(cookie, "Send confirmation link", { email: target, password: "password1" });
    const path = await changeLinkPath(target);
    await users.signUp({ email: target, password: "password1" });
    const r = await submitForm(app.url, path, {}, { headers: { cookie }, containing: "Confirm new address" });
    expect(r.html).toContain("That address is already used by another account. Nothing was changed.");
    const u = await db().user.findUniqueOrThrow({ where: { id: p.userId } });
    expect(u.email).toBe(p.email);
    expect(await opens(p.slug, cookie)).toBe(200);
  });

  test("a password change cancels a pending link; the link expires after a day (the clock moves, no sleeping)", async () => {
    const p = await person("pending");
    const at = Date.parse("2026-11-25T12:00:00Z");
    clock.setClock(() => at);
    const target = fresh("later");
    await emailChange.requestEmailChange(p.userId, { email: target, password: "password1" }, { signedInAt: null });
    const token = (await changeLinkPath(target)).split("/").pop()!;
    expect(await emailChange.checkEmailChangeLink(token, p.userId)).toEqual({ state: "valid", email: target });
    clock.setClock(() => at + emailChange.EMAIL_CHANGE_LINK_HOURS * 3600_000 + 1000);
    expect(await emailChange.confirmEmailChange(token, p.userId)).toEqual({ state: "expired" });
    clock.setClock(() => at);

    const { changePassword } = await import("../../lib/auth/account.ts");
    await changePassword(p.userId, { current: "password1", next: "password2" });
    expect(await emailChange.confirmEmailChange(token, p.userId)).toEqual({ state: "invalid" });
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).email).toBe(p.email);
  });

  test("requests are limited per account", async () => {
    const p = await person("eager");
    for (let i = 0; i < emailChange.EMAIL_CHANGE_LIMIT.limit; i++)
      await emailChange.requestEmailChange(p.userId, { email: fresh("try"), password: "password1" }, { signedInAt: null });
    await expect(
      emailChange.requestEmailChange(p.userId, { email: fresh("try"), password: "password1" }, { signedInAt: null }),
    ).rejects.toMatchObject({ code: "rate_limit" });
  });

  test("an account without a password needs a sign-in within the last 10 minutes", async () => {
    const p = await person("oauth-only");
    await db().user.update({ where: { id: p.userId }, data: { passwordHash: null } });
    const at = Date.parse("2026-11-25T12:00:00Z");
    clock.setClock(() => at);
    const old = at - (reauth.RECENT_SIGN_IN_MINUTES * 60_000 + 1000);
    await expect(emailChange.requestEmailChange(p.userId, { email: fresh("o"), password: "" }, { signedInAt: old })).rejects.toMatchObject({
      code: "forbidden",
      message: reauth.RECENT_SIGN_IN_MESSAGE,
    });
    await expect(emailChange.requestEmailChange(p.userId, { email: fresh("o"), password: "" }, { signedInAt: null })).rejects.toMatchObject(
      {
        code: "forbidden",
      },
    );
    const target = fresh("o");
    await expect(emailChange.requestEmailChange(p.userId, { email: target, password: "" }, { signedInAt: at - 60_000 })).resolves.toEqual({
      email: target,
    });
  });
});

describe("sign out everywhere", () => {
  test("ends every session of the account, this one included, and lands on the login page", async () => {
    const p = await person("leaver");
    const here = await signInCookie(app.url, p.email, "password1");
    const there = await signInCookie(app.url, p.email, "password1");
    const bystander = await person("bystander");
    const theirs = await signInCookie(app.url, bystander.email, "password1");
    expect(await opens(p.slug, here)).toBe(200);
    expect(await opens(p.slug, there)).toBe(200);

    const r = await accountForm(here, "Sign out everywhere", {});
    expect(r.status).toBe(303);
    expect(r.location).toContain("/login");

    expect(await opens(p.slug, here)).toMatch(/^307 .*\/login/);
    expect(await opens(p.slug, there)).toMatch(/^307 .*\/login/);
    expect(await opens(bystander.slug, theirs)).toBe(200);
    expect(await canSignIn(p.email)).toBe(true);
  });
});

describe("delete account", () => {
  async function link(workspaceId: number, code: string) {
    return db().link.create({ data: { workspaceId, code, url: `https://dest.example/${code}` } });
  }

  test("the only owner of a workspace with other members is refused, told which and how; nothing is deleted", async () => {
    const p = await person("sole-owner");
    const colleague = await person("colleague");
    await db().user.update({ where: { id: colleague.userId }, data: { emailVerifiedAt: new Date() } });
    await members.addMember({ slug: p.slug, email: colleague.email, role: "member" });
    const cookie = await signInCookie(app.url, p.email, "password1");

    const page = await (await fetch(`${app.url}/account`, { headers: { cookie } })).text();
    expect(page).toContain(`/w/${p.slug}/members`);
    expect(page).not.toContain("Delete my account");

    await expect(
      (await import("../../lib/auth/delete-account.ts")).deleteAccount(
        p.userId,
        { password: "password1", confirm: [] },
        { signedInAt: null },
      ),
    ).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("Transfer ownership") });
    expect(await db().user.findUnique({ where: { id: p.userId } })).not.toBeNull();
    expect(await db().workspace.findUnique({ where: { slug: p.slug } })).not.toBeNull();
    expect(await opens(p.slug, cookie)).toBe(200);
  });

  test("a wrong password, or a workspace not ticked, is refused; nothing is deleted", async () => {
    const p = await person("careful");
    const cookie = await signInCookie(app.url, p.email, "password1");
    const wrong = await accountForm(cookie, "Delete my account", { password: "not-my-password", confirm: p.slug });
    expect(wrong.status).toBe(200);
    expect(wrong.html).toContain("The current password is wrong.");
    const unticked = await accountForm(cookie, "Delete my account", { password: "password1" });
    expect(unticked.status).toBe(200);
    expect(unticked.html).toContain("Tick each workspace that will be deleted");
    expect(await db().user.findUnique({ where: { id: p.userId } })).not.toBeNull();
    expect(await db().workspace.findUnique({ where: { slug: p.slug } })).not.toBeNull();
    expect(await opens(p.slug, cookie)).toBe(200);
  });

  test("deletes the workspace the user alone is in, leaves a shared one with its links; the account can no longer sign in", async () => {
    const p = await person("goner");
    const partner = await person("partner");
    // A shared workspace owned by the partner, where the user is an admin, with a link of each.
    await db().user.update({ where: { id: p.userId }, data: { emailVerifiedAt: new Date() } });
    await members.addMember({ slug: partner.slug, email: p.email, role: "admin" });
    const sharedLink = await link(partner.workspaceId, `shared${n}`);
    const ownLink = await link(p.workspaceId, `own${n}`);
    await db().account.create({ data: { userId: p.userId, provider: "github", providerAccountId: `gh-${n}` } });
    await db().invitation.create({
      data: {
        workspaceId: partner.workspaceId,
        email: fresh("invitee"),
        role: "member",
        tokenHash: `hash-${n}`,
        invitedById: p.userId,
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    const cookie = await signInCookie(app.url, p.email, "password1");
    const other = await signInCookie(app.url, p.email, "password1");

    const page = await (await fetch(`${app.url}/account`, { headers: { cookie } })).text();
    expect(page).toContain(`value="${p.slug}"`);

    const r = await accountForm(cookie, "Delete my account", { password: "password1", confirm: p.slug });
    expect(r.status).toBe(303);
    expect(r.location).toContain("/login?deleted=1");

    expect(await db().user.findUnique({ where: { id: p.userId } })).toBeNull();
    expect(await db().workspace.findUnique({ where: { id: p.workspaceId } })).toBeNull();
    expect(await db().link.findUnique({ where: { id: ownLink.id } })).toBeNull();
    expect(await db().account.count({ where: { userId: p.userId } })).toBe(0);
    expect(await db().workspace.findUnique({ where: { id: partner.workspaceId } })).not.toBeNull();
    expect(await db().link.findUnique({ where: { id: sharedLink.id } })).not.toBeNull();
    expect(await db().membership.count({ where: { workspaceId: partner.workspaceId } })).toBe(1);
    expect(await db().invitation.count({ where: { workspaceId: partner.workspaceId } })).toBe(1);

    expect(await opens(p.slug, cookie)).toMatch(/^307 .*\/login/);
    expect(await opens(partner.slug, other)).toMatch(/^307 .*\/login/);
    expect(await canSignIn(p.email)).toBe(false);
    const notice = await smtp.waitFor((m) => m.to.includes(p.email) && m.subject === "Your Linkhop account was deleted");
    expect(notice.text).toContain(p.slug);
    const partnerCookie = await signInCookie(app.url, partner.email, "password1");
    expect(await opens(partner.slug, partnerCookie)).toBe(200);
  });
});
