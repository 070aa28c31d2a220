import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { RunningApp } from "../support/app.ts";
import { AUTH_TEST_APP_URL, startAuthTestApp, type AuthTestEnv } from "../support/auth-app.ts";
import type { SmtpServer } from "../support/smtp.ts";
import { signInCookie } from "../support/session.ts";
import { submitForm } from "./security-auth-forms.ts";

// Email verification (lib/auth/verification.ts) against the running server and a real SMTP
// server: someone who signs up with another person's address is not let in by "Add existing
// account", nor linked to that person's Google/GitHub sign-in; the real owner verifies by mail.
let env: AuthTestEnv;
let smtp: SmtpServer;
let app: RunningApp;
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let members: typeof import("../../lib/members/index.ts");
let inv: typeof import("../../lib/members/invitations.ts");
let oauth: typeof import("../../lib/auth/oauth.ts");
let verification: typeof import("../../lib/auth/verification.ts");
let db: typeof import("../../lib/db/client.ts").db;

const APP_URL = AUTH_TEST_APP_URL;

beforeAll(async () => {
  env = await startAuthTestApp();
  ({ app, smtp } = env);
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  members = await import("../../lib/members/index.ts");
  inv = await import("../../lib/members/invitations.ts");
  oauth = await import("../../lib/auth/oauth.ts");
  verification = await import("../../lib/auth/verification.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterAll(async () => {
  await env?.stop();
});

let n = 0;
const fresh = (label: string) => `${label}-${++n}@example.test`;

/** Signs up through the sign-up form over HTTP, as anyone can. */
async function signUpOverHttp(email: string) {
  const r = await submitForm(app.url, "/signup", { email, password: "password1" });
  expect(r.status).toBe(303);
  return r.location!.split("/w/")[1];
}

/** The verification link of the last mail to `email`, as a path on the app. */
async function verificationPath(email: string, after = 0) {
  const mail = await smtp.waitFor((m) => m.to.includes(email) && smtp.messages.indexOf(m) >= after);
  expect(mail.subject).toBe("Confirm your email address for Linkhop");
  const url = /https?:\/\/\S+\/account\/verify\/\S+/.exec(mail.text)![0];
  expect(url.startsWith(`${APP_URL}/account/verify/`)).toBe(true);
  return new URL(url).pathname;
}

async function teamOwner() {
  const owner = await users.createUser({ email: fresh("owner"), password: "password1" });
  const slug = `ver-${++n}`;
  await ws.createWorkspace({ slug, name: `Verify Co ${n}`, owner: owner.email, plan: "team" });
  return { ...owner, slug };
}

describe("sign-up", () => {
  test("mails a verification link; the account works in its own workspace before it verifies", async () => {
    const email = fresh("new");
    const slug = await signUpOverHttp(email);
    const path = await verificationPath(email);
    const cookie = await signInCookie(app.url, email, "password1");
    const home = await fetch(`${app.url}/w/${slug}`, { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Verify your email");

    const page = await fetch(`${app.url}${path}`);
    expect(await page.text()).toContain("Email address confirmed");
    expect((await db().user.findUniqueOrThrow({ where: { email } })).emailVerifiedAt).not.toBeNull();
    const after = await fetch(`${app.url}/w/${slug}`, { headers: { cookie } });
    expect(await after.text()).not.toContain("Verify your email");
  });

  test("a tampered, foreign or stale link verifies nothing", async () => {
    const email = fresh("tamper");
    await signUpOverHttp(email);
    const path = await verificationPath(email);
    const [, , , token] = path.split("/");
    const [id, expires, mac] = token.split(".");
    const other = await users.signUp({ email: fresh("other"), password: "password1" });
    for (const bad of [
      `${other.user.id}.${expires}.${mac}`, // another account with this link's code
      `${id}.${Number(expires) + 86_400}.${mac}`, // a later expiry
      `${id}.${expires}.${mac.slice(0, -2)}AA`,
      "nonsense",
    ]) {
      const res = await fetch(`${app.url}/account/verify/${bad}`);
      expect(await res.text()).toContain("This link is not valid");
    }
    const stale = verification.verificationToken(
      other.user.id,
      (await db().user.findUniqueOrThrow({ where: { id: other.user.id } })).email,
      Date.now() - 4 * 86_400_000,
    );
    expect(await (await fetch(`${app.url}/account/verify/${stale}`)).text()).toContain("This link has expired");
    expect(await db().user.count({ where: { email: { in: [email, other.user.email] }, emailVerifiedAt: { not: null } } })).toBe(0);
  });
});

describe("add existing account", () => {
  test("someone who signed up with another person's address is not let in; the owner of the address is, once verified", async () => {
    const team = await teamOwner();
    const victim = fresh("victim");
    await signUpOverHttp(victim); // the squatter, who cannot read the victim's mail

    const squatted = await members.addMemberAs(team.id, team.slug, { email: victim, role: "member" }).catch((e: Error) => e);
    const unknown = await members.addMemberAs(team.id, team.slug, { email: fresh("nobody"), role: "member" }).catch((e: Error) => e);
    expect(squatted).toMatchObject({ code: "not_found" });
    expect(unknown).toMatchObject({ code: "not_found" });
    expect((squatted as Error).message.replace(victim, "X")).toBe((unknown as Error).message.replace(/nobody-\d+@example\.test/, "X"));
    expect((squatted as Error).message).toContain("Invite them instead");
    const ws0 = await db().workspace.findUniqueOrThrow({ where: { slug: team.slug } });
    expect(await db().membership.count({ where: { workspaceId: ws0.id } })).toBe(1);

    // The legitimate path: the address's owner follows the mailed link, then can be added.
    const path = await verificationPath(victim);
    await fetch(`${app.url}${path}`);
    await expect(members.addMemberAs(team.id, team.slug, { email: victim, role: "member" })).resolves.toMatchObject({
      email: victim,
      via: "added",
    });
  });

  test("accepting an invitation needs an address verified by mail and verifies nothing; accounts made with the admin CLI are verified", async () => {
    const team = await teamOwner();
    const invitee = fresh("invitee");
    const sent = await inv.inviteMember(team.id, team.slug, { email: invitee, role: "member" });
    const token = sent.url.split("/invite/")[1];
    const { user } = await users.signUp({ email: invitee, password: "password1" });
    await expect(inv.acceptInvitation(user.id, token)).rejects.toMatchObject({ code: "forbidden", message: inv.UNVERIFIED_MESSAGE });
    const row = await db().user.findUniqueOrThrow({ where: { id: user.id }, include: { memberships: { include: { workspace: true } } } });
    expect(row.emailVerifiedAt).toBeNull();
    expect(row.memberships.map((m) => m.workspace.slug)).not.toContain(team.slug);
    expect(await db().invitation.count({ where: { email: invitee, acceptedAt: { not: null } } })).toBe(0);

    const mailsBefore = smtp.messages.length;
    await verification.sendVerificationMail(user.id);
    await fetch(`${app.url}${await verificationPath(invitee, mailsBefore)}`);
    await expect(inv.acceptInvitation(user.id, token)).resolves.toMatchObject({ slug: team.slug, member: { email: invitee } });

    const cli = await users.createUser({ email: fresh("cli"), password: "password1" });
    expect((await db().user.findUniqueOrThrow({ where: { id: cli.id } })).emailVerifiedAt).not.toBeNull();
  });
});

describe("an address squatted before its owner was invited", () => {
  test("the invitation gives nobody the squatted account: no password change, no verification, the squatter's sessions stay", async () => {
    const team = await teamOwner();
    const victim = fresh("claimed");
    const slug = await signUpOverHttp(victim); // the squatter's account and workspace
    const squatterCookie = await signInCookie(app.url, victim, "password1");
    const before = await db().user.findUniqueOrThrow({ where: { email: victim } });
    const sent = await inv.inviteMember(team.id, team.slug, { email: victim, role: "member" });
    const token = sent.url.split("/invite/")[1];
    expect(Object.keys(await inv.lookupInvitation(token)).sort()).toEqual(["email", "role", "state", "workspace"]);
    expect(inv).not.toHaveProperty("claimWithInvitation");

    // Whoever opens the link gets the sign-up and sign-in forms of any address, nothing more.
    const page = await (await fetch(`${app.url}/invite/${token}`)).text();
    expect(page).toContain("Create account and join");
    expect(page).not.toContain("Set password and join");
    const after = await db().user.findUniqueOrThrow({ where: { email: victim } });
    expect([after.passwordHash, after.sessionVersion, after.emailVerifiedAt]).toEqual([before.passwordHash, before.sessionVersion, null]);
    expect((await fetch(`${app.url}/w/${slug}`, { headers: { cookie: squatterCookie } })).status).toBe(200);
  });
});

describe("GitHub / Google sign-in", () => {
  const identity = (email: string, emailVerified: boolean) => ({
    provider: "google",
    providerAccountId: `g-${++n}`,
    email,
    name: null,
    emailVerified,
  });

  test("is not linked to an unverified account with the same address (pre-account takeover)", async () => {
    const victim = fresh("pre");
    await signUpOverHttp(victim); // the squatter's password account
    await expect(oauth.signInWithOAuth(identity(victim, true))).rejects.toMatchObject({ reason: "oauth_account_unverified" });
    const user = await db().user.findUniqueOrThrow({ where: { email: victim }, include: { accounts: true } });
    expect(user.accounts).toHaveLength(0);
  });

  test("is linked to a verified account only when the provider vouches for the address", async () => {
    const owner = await users.createUser({ email: fresh("linked"), password: "password1" });
    await expect(oauth.signInWithOAuth(identity(owner.email, false))).rejects.toMatchObject({ reason: "oauth_unverified_email" });
    const id = identity(owner.email, true);
    await expect(oauth.signInWithOAuth(id)).resolves.toMatchObject({ id: owner.id });
    await expect(oauth.signInWithOAuth({ ...id, emailVerified: false })).resolves.toMatchObject({ id: owner.id });
  });

  test("a new address makes a new account, verified only when the provider vouches for it", async () => {
    const vouched = await oauth.signInWithOAuth(identity(fresh("g-new"), true));
    expect(vouched.emailVerifiedAt).not.toBeNull();
    // unvouched: the account exists, unverified, its identity recorded as such and refused until the mailbox confirms
    const email = fresh("g-unv");
    await expect(oauth.signInWithOAuth(identity(email, false))).rejects.toMatchObject({ reason: "oauth_confirm_mail" });
    const unvouched = await db().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });
    expect(unvouched.emailVerifiedAt).toBeNull();
    expect(unvouched.accounts.map((a) => a.linkedUnverified)).toEqual([true]);
    await verificationPath(unvouched.email);
  });
});

describe("resend", () => {
  test("the notice's Resend mails a new link; at most 5 an hour", async () => {
    const email = fresh("resend");
    const slug = await signUpOverHttp(email);
    await verificationPath(email);
    const cookie = await signInCookie(app.url, email, "password1");
    for (let i = 0; i < 5; i++) {
      const before = smtp.messages.length;
      const r = await submitForm(app.url, `/w/${slug}`, {}, { headers: { cookie }, containing: "Resend" });
      expect(r.html).toContain("Sent again.");
      await verificationPath(email, before);
    }
    const refused = await submitForm(app.url, `/w/${slug}`, {}, { headers: { cookie }, containing: "Resend" });
    expect(refused.html).toContain("Too many mails sent. Try again in");
  });
});
