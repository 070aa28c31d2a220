import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callAction } from "../support/actions.ts";
import type { RunningApp } from "../support/app.ts";
import { AUTH_TEST_APP_URL, startAuthTestApp, type AuthTestEnv } from "../support/auth-app.ts";
import type { SmtpServer } from "../support/smtp.ts";
import { signInCookie } from "../support/session.ts";
import { sessionCookieOf, submitForm } from "./security-auth-forms.ts";

// An invitation link is seen by the inviter as well as the invitee (the dialog and the Members page
// show it), so holding it proves nothing about the invited mailbox. Played as an attacker would,
// over HTTP against the running server with a real SMTP server: the inviter can neither take over
// an account with the invited address, nor make a verified account for it, nor learn whether one
// exists; the mailbox's owner, reading the mail, still joins.
let env: AuthTestEnv;
let smtp: SmtpServer;
let app: RunningApp;
let oauth: typeof import("../../lib/auth/oauth.ts");
let members: typeof import("../../lib/members/index.ts");
let invitations: typeof import("../../lib/members/invitations.ts");
let db: typeof import("../../lib/db/client.ts").db;

const APP_URL = AUTH_TEST_APP_URL;

beforeAll(async () => {
  env = await startAuthTestApp();
  ({ app, smtp } = env);
  oauth = await import("../../lib/auth/oauth.ts");
  members = await import("../../lib/members/index.ts");
  invitations = await import("../../lib/members/invitations.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterAll(async () => {
  await env?.stop();
});

let n = 0;
const fresh = (label: string) => `${label}-${++n}@example.test`;
const PASSWORD = "password1";

/** Signs up through the public sign-up form, as anyone can; returns the workspace slug and a session. */
async function signUp(email: string) {
  const r = await submitForm(app.url, "/signup", { email, password: PASSWORD });
  expect(r.status).toBe(303);
  return { email, slug: r.location!.split("/w/")[1], cookie: await signInCookie(app.url, email, PASSWORD) };
}

/** The Members dialog's "Send invitation", over HTTP as the browser calls it. */
async function invite(inviter: { slug: string; cookie: string }, email: string) {
  return callAction<{ ok: boolean; data?: { id: number; email: string; role: string; url: string; mailed: boolean }; error?: string }>(
    app.url,
    { page: `/w/${inviter.slug}/members`, file: "app/w/[slug]/members/actions.ts", name: "inviteAction", cookie: inviter.cookie },
    [inviter.slug, { email, role: "member" }],
  );
}

const tokenOf = (url: string) => url.split("/invite/")[1];

/** The invitation page's "Accept and join", posted as a browser without JavaScript does: where it leads. */
async function accept(cookie: string, token: string): Promise<string | null> {
  const r = await submitForm(app.url, `/invite/${token}`, {}, { headers: { cookie }, containing: "Accept and join" });
  expect(r.status, r.html.slice(0, 300)).toBe(303);
  return r.location;
}

async function verificationLink(email: string) {
  const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject === "Confirm your email address for Linkhop");
  return new URL(/https?:\/\/\S+\/account\/verify\/\S+/.exec(mail.text)![0]);
}

async function userRow(email: string) {
  return db().user.findUniqueOrThrow({ where: { email }, include: { accounts: true, memberships: true } });
}

// Several sign-ups and sign-ins (scrypt) per test.
describe("an invitation link in the inviter's hands", { timeout: 120_000 }, () => {
  test("cannot set the password of, verify, or join an existing unverified account; its owner verifies by mail and joins", async () => {
    const victim = fresh("victim");
    const victimSide = await signUp(victim); // self-registered, address not verified yet
    const before = await userRow(victim);
    expect(before.emailVerifiedAt).toBeNull();

    const attacker = await signUp(fresh("attacker"));
    const sent = await invite(attacker, victim);
    expect(sent.ok).toBe(true);
    const token = tokenOf(sent.data!.url);

    // The page offers nothing that bypasses the password: no "set a new password" for the account.
    const page = await (await fetch(`${app.url}/invite/${token}`)).text();
    expect(page).not.toMatch(/never confirmed|Set password/);

    // Signing up through the invitation with the address that has an account changes nothing.
    const signUpTry = await submitForm(
      app.url,
      `/invite/${token}`,
      { password: "attacker's password" },
      { containing: "Create account and join" },
    );
    expect(signUpTry.status).toBe(200);
    expect(signUpTry.html).toContain("An account with this email already exists");
    expect(sessionCookieOf(signUpTry.cookies)).toBeUndefined();
    // Signing in through it needs the account's password like the login form.
    const signInTry = await submitForm(
      app.url,
      `/invite/${token}?mode=signin`,
      { password: "a guess" },
      { containing: "Sign in and join" },
    );
    expect(signInTry.html).toContain("Wrong password.");
    expect(sessionCookieOf(signInTry.cookies)).toBeUndefined();
    await expect(signInCookie(app.url, victim, "attacker's password")).rejects.toThrow(/sign-in failed/);

    const after = await userRow(victim);
    expect(after.passwordHash).toBe(before.passwordHash);
    expect(after.sessionVersion).toBe(before.sessionVersion);
    expect(after.emailVerifiedAt).toBeNull();
    expect(after.memberships).toHaveLength(1); // only the victim's own workspace
    expect((await fetch(`${app.url}/w/${victimSide.slug}`, { headers: { cookie: victimSide.cookie } })).status).toBe(200);

    // The victim, signed in, is asked to confirm the address first; accepting is refused until then.
    const asked = await (await fetch(`${app.url}/invite/${token}`, { headers: { cookie: victimSide.cookie } })).text();
    expect(asked).toContain("Confirm your email address to join");
    expect(asked).not.toContain("Accept and join");
    await expect(invitations.acceptInvitation(before.id, token)).rejects.toMatchObject({ code: "forbidden" });
    expect((await userRow(victim)).memberships).toHaveLength(1);

    // The mailbox's owner follows the sign-up mail's link, then accepts.
    const link = await verificationLink(victim);
    expect(await (await fetch(`${app.url}${link.pathname}`)).text()).toContain("Email address confirmed");
    const joined = await submitForm(
      app.url,
      `/invite/${token}`,
      {},
      { headers: { cookie: victimSide.cookie }, containing: "Accept and join" },
    );
    expect(joined.status).toBe(303);
    expect(joined.location).toContain(`/w/${attacker.slug}?joined=1`);
    expect((await userRow(victim)).memberships).toHaveLength(2);
  });

  test("signing up through it makes an unverified account that cannot join, be added, or take a Google identity until the mailbox confirms", async () => {
    const owner = await signUp(fresh("owner"));
    const invitee = fresh("invitee"); // no account yet
    const sent = await invite(owner, invitee);
    const token = tokenOf(sent.data!.url);

    // Whoever holds the link (here: the inviter) signs up as the invited address.
    const r = await submitForm(app.url, `/invite/${token}`, { password: "holder's password" }, { containing: "Create account and join" });
    expect(r.status).toBe(303);
    expect(r.location).toContain(`/invite/${token}`); // back to the invitation, not into the workspace
    const cookie = sessionCookieOf(r.cookies)!;
    expect(cookie).toBeTruthy();
    const made = await userRow(invitee);
    expect(made.emailVerifiedAt).toBeNull();
    expect(made.memberships).toHaveLength(1); // its own workspace only

    expect(await (await fetch(`${app.url}/invite/${token}`, { headers: { cookie } })).text()).toContain(
      "Confirm your email address to join",
    );
    await expect(invitations.acceptInvitation(made.id, token)).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      members.addMemberAs((await userRow(owner.email)).id, owner.slug, { email: invitee, role: "member" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      oauth.signInWithOAuth({ provider: "google", providerAccountId: `g-${++n}`, email: invitee, name: null, emailVerified: true }),
    ).rejects.toMatchObject({ reason: "oauth_account_unverified" });
    const still = await userRow(invitee);
    expect(still.emailVerifiedAt).toBeNull();
    expect(still.accounts).toHaveLength(0);
    expect(still.memberships).toHaveLength(1);

    // Only the mail, sent to the address alone, confirms it; its link leads back to the invitation.
    const link = await verificationLink(invitee);
    expect(link.searchParams.get("next")).toBe(`/invite/${token}`);
    const confirmed = await (await fetch(`${app.url}${link.pathname}${link.search}`)).text();
    expect(confirmed).toContain("Email address confirmed");
    expect(confirmed).toContain(`href="/invite/${token}"`);
    expect(await accept(cookie, token)).toBe(`/w/${owner.slug}?joined=1`);
  });
});

describe("what the inviter learns", () => {
  test("the invite form's answer and the invitation page are the same whether the address has an account, an unverified one, or none", async () => {
    const inviter = await signUp(fresh("inviter"));
    const verified = fresh("has-verified");
    await signUp(verified);
    await db().user.update({ where: { email: verified }, data: { emailVerifiedAt: new Date() } });
    const unverified = fresh("has-unverified");
    await signUp(unverified);
    const none = fresh("has-none");

    const answers = [];
    const pages = [];
    for (const email of [verified, unverified, none]) {
      const sent = await invite(inviter, email);
      expect(sent.ok).toBe(true);
      const token = tokenOf(sent.data!.url);
      // Everything but the address, the token and the invitation's id must match.
      const scrub = (s: string) => s.replaceAll(email, "EMAIL").replaceAll(token, "TOKEN");
      answers.push(scrub(JSON.stringify({ ...sent, data: { ...sent.data, id: 0 } })));
      for (const q of ["", "?mode=signin"])
        pages.push([q, scrub(stableHtml(await (await fetch(`${app.url}/invite/${token}${q}`)).text()))]);
    }
    expect(answers[1]).toBe(answers[0]);
    expect(answers[2]).toBe(answers[0]);
    for (const q of ["", "?mode=signin"]) {
      const same = pages.filter(([mode]) => mode === q).map(([, html]) => html);
      expect(same[1]).toBe(same[0]);
      expect(same[2]).toBe(same[0]);
    }
  });
});

/** The page without what differs between any two renders (React's per-render ids and nonces, build chunk hashes). */
function stableHtml(html: string) {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/\b(id|for|aria-describedby|aria-labelledby)="[^"]*"/g, "")
    .replace(/\$ACTION[^"]*/g, "");
}

describe("accounts verified by an invitation before this release", () => {
  test("the migration unverifies addresses verified by accepting an invitation and keeps those verified by mail before", async () => {
    const sql = fs.readFileSync(
      path.join(import.meta.dirname, "../../prisma/migrations/20261125090000_unverify_invitation_verified/migration.sql"),
      "utf8",
    );
    const ws = await db().workspace.create({ data: { slug: `mig-${++n}`, name: "Migration Co", plan: "team" } });
    const t = new Date("2026-10-01T12:00:00Z");
    const byInvitation = await db().user.create({ data: { email: fresh("by-invitation"), emailVerifiedAt: t } });
    const byMailEarlier = await db().user.create({ data: { email: fresh("by-mail"), emailVerifiedAt: new Date(t.getTime() - 60_000) } });
    const neverInvited = await db().user.create({ data: { email: fresh("not-invited"), emailVerifiedAt: t } });
    const invitation = (email: string, acceptedAt: Date | null) =>
      db().invitation.create({
        data: {
          workspaceId: ws.id,
          email,
          role: "member",
          tokenHash: `hash-${++n}`,
          expiresAt: new Date(t.getTime() + 86_400_000),
          acceptedAt,
        },
      });
    await invitation(byInvitation.email, new Date(t.getTime() + 3)); // verified in the acceptance's transaction
    await invitation(byMailEarlier.email, t);
    const client = new pg.Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
    const verifiedAt = async (id: number) => (await db().user.findUniqueOrThrow({ where: { id } })).emailVerifiedAt;
    expect(await verifiedAt(byInvitation.id)).toBeNull();
    expect(await verifiedAt(byMailEarlier.id)).toEqual(new Date(t.getTime() - 60_000));
    expect(await verifiedAt(neverInvited.id)).toEqual(t);
  });
});
