import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callAction } from "../support/actions.ts";
import type { RunningApp } from "../support/app.ts";
import { startAuthTestApp, type AuthTestEnv } from "../support/auth-app.ts";
import type { SmtpServer } from "../support/smtp.ts";
import { signInCookie } from "../support/session.ts";
import { sessionCookieOf, submitForm } from "./security-auth-forms.ts";

// Invite-only sign-up as the audit played it (finding 5), over HTTP against the running app with a
// real SMTP server: any account holder could invite an address whose mail they do not read, sign
// up with it on the invitation page, revoke the invitation and keep an account (its own workspace,
// API keys). On an invite-only instance the account now exists only once the mailbox confirmed:
// sign-up mails a link, and the link's page asks for the password chosen at sign-up
// (lib/auth/pending-signup.ts).
let env: AuthTestEnv;
let smtp: SmtpServer;
let app: RunningApp;
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let inst: typeof import("../../lib/instance/index.ts");
let oauth: typeof import("../../lib/auth/oauth.ts");
let db: typeof import("../../lib/db/client.ts").db;

beforeAll(async () => {
  env = await startAuthTestApp();
  ({ app, smtp } = env);
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  inst = await import("../../lib/instance/index.ts");
  oauth = await import("../../lib/auth/oauth.ts");
  db = (await import("../../lib/db/client.ts")).db;
  await inst.setSignupMode({ mode: "invite" });
});

afterAll(async () => {
  await env?.stop();
});

let n = 0;
const fresh = (label: string) => `${label}-${++n}@example.test`;
const PASSWORD = "password1";
const FINISH_SUBJECT = "Finish creating your Linkhop account";

/** An account holder (the operator made it) with a workspace of their own, signed in. */
async function accountHolder() {
  const u = await users.createUser({ email: fresh("holder"), password: PASSWORD });
  const slug = `holder-${++n}`;
  await ws.createWorkspace({ slug, name: "Holder's", owner: u.email, plan: "free" });
  return { ...u, slug, cookie: await signInCookie(app.url, u.email, PASSWORD) };
}

type Answer = { ok: boolean; code?: string; error?: string; data?: { id: number; url: string } };
const membersAction = (who: { slug: string; cookie: string }, name: string, arg: unknown) =>
  callAction<Answer>(app.url, { page: `/w/${who.slug}/members`, file: "app/w/[slug]/members/actions.ts", name, cookie: who.cookie }, [
    who.slug,
    arg,
  ]);

const tokenOf = (url: string) => url.split("/invite/")[1];

/** The invitation page's "Create account and join", as a browser without JavaScript posts it. */
const signUpOnInvitePage = (token: string, password: string) =>
  submitForm(app.url, `/invite/${token}`, { password }, { containing: "Create account and join" });

async function finishLink(email: string): Promise<string> {
  const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject === FINISH_SUBJECT);
  return new URL(/https?:\/\/\S+\/signup\/confirm\/[A-Za-z0-9_-]+\S*/.exec(mail.text)![0]).pathname;
}

const userOf = (email: string) => db().user.findUnique({ where: { email }, include: { memberships: true } });

describe("invite-only sign-up", { timeout: 120_000 }, () => {
  test("the audit's scenario: invite an unread address, sign up with it, revoke: no account, no sign-in, no workspace", async () => {
    const attacker = await accountHolder();
    const victim = fresh("unread");
    const sent = await membersAction(attacker, "inviteAction", { email: victim, role: "member" });
    expect(sent.ok).toBe(true);
    const token = tokenOf(sent.data!.url);

    // Sign-up on the invitation page and on the sign-up form: no account, no session, only a mail
    // to the address (which the attacker does not read).
    const viaInvite = await signUpOnInvitePage(token, "attacker's password");
    expect(viaInvite.status).toBe(303);
    expect(viaInvite.location).toBe("/signup/check-mail");
    expect(sessionCookieOf(viaInvite.cookies)).toBeUndefined();
    const viaForm = await submitForm(app.url, "/signup", { email: victim, password: "attacker's password" });
    expect(viaForm.location).toBe("/signup/check-mail");
    expect(sessionCookieOf(viaForm.cookies)).toBeUndefined();
    expect(await userOf(victim)).toBeNull();
    await expect(signInCookie(app.url, victim, "attacker's password")).rejects.toThrow(/sign-in failed/);
    // nor through an OpenID Connect provider that does not vouch for the address
    await expect(
      oauth.signInWithOAuth({ provider: "oidc", providerAccountId: `sub-${++n}`, email: victim, name: null, emailVerified: false }),
    ).rejects.toMatchObject({ reason: "oauth_unverified_email" });
    expect(await userOf(victim)).toBeNull();

    expect(await membersAction(attacker, "revokeInvitationAction", { id: sent.data!.id })).toMatchObject({ ok: true });
    expect(await userOf(victim)).toBeNull();
    await expect(signInCookie(app.url, victim, "attacker's password")).rejects.toThrow(/sign-in failed/);
    // Even the mailbox's link makes no account once the invitation is gone.
    const link = await finishLink(victim);
    const late = await submitForm(app.url, link, { password: "attacker's password" }, { containing: "Create account" });
    expect(late.status).toBe(200);
    expect(late.html).toContain("by invitation only");
    expect(sessionCookieOf(late.cookies)).toBeUndefined();
    expect(await userOf(victim)).toBeNull();
    expect(await db().workspace.count({ where: { memberships: { some: { user: { email: victim } } } } })).toBe(0);
  });

  test("the mailbox's owner finishes with the mailed link and the password chosen at sign-up, then joins", async () => {
    const owner = await accountHolder();
    const invitee = fresh("invitee");
    const sent = await membersAction(owner, "inviteAction", { email: invitee, role: "member" });
    const token = tokenOf(sent.data!.url);

    // Whoever holds the invitation link (the inviter too) starts a sign-up with a password of theirs;
    // the mailbox's owner, who does not know it, cannot finish that one.
    expect((await signUpOnInvitePage(token, "holder's password")).location).toBe("/signup/check-mail");
    const holderLink = await finishLink(invitee);
    smtp.messages.splice(0, smtp.messages.length); // the next finishLink waits for the next mail
    const page = await fetch(`${app.url}${holderLink}`);
    expect(page.status).toBe(200);
    expect(await userOf(invitee)).toBeNull(); // opening the link changes nothing
    const wrong = await submitForm(app.url, holderLink, { password: "my own password" }, { containing: "Create account" });
    expect(wrong.html).toContain("not the password chosen");
    expect(await userOf(invitee)).toBeNull();

    // The mailbox's owner signs up on the invitation page, and finishes with their mail's link.
    expect((await signUpOnInvitePage(token, "my own password")).location).toBe("/signup/check-mail");
    const link = await finishLink(invitee);
    const done = await submitForm(app.url, link, { password: "my own password" }, { containing: "Create account" });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/invite/${token}`);
    const cookie = sessionCookieOf(done.cookies)!;
    expect(cookie).toBeTruthy();
    const made = await userOf(invitee);
    expect(made?.emailVerifiedAt).not.toBeNull();
    expect(made?.memberships).toHaveLength(1); // its own workspace
    // Used: the link, and the holder's waiting sign-up, make nothing more.
    for (const used of [link, holderLink]) expect(await (await fetch(`${app.url}${used}`)).text()).toContain("This link is not valid");
    expect(await db().pendingSignUp.count({ where: { email: invitee } })).toBe(0);
    expect(await signInCookie(app.url, invitee, "my own password")).toBeTruthy();
    await expect(signInCookie(app.url, invitee, "holder's password")).rejects.toThrow(/sign-in failed/);

    const joined = await submitForm(app.url, `/invite/${token}`, {}, { headers: { cookie }, containing: "Accept and join" });
    expect(joined.status).toBe(303);
    expect(joined.location).toContain(`/w/${owner.slug}?joined=1`);
    expect((await userOf(invitee))?.memberships).toHaveLength(2);
  });
});
