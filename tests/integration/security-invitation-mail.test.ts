import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { callAction } from "../support/actions.ts";
import type { RunningApp } from "../support/app.ts";
import { startAuthTestApp, type AuthTestEnv } from "../support/auth-app.ts";
import type { SmtpServer } from "../support/smtp.ts";
import { signInCookie } from "../support/session.ts";

// Invitation mails as an abuser would send them (audit finding 4), over HTTP against the running
// app with a real SMTP server: the number of mails per inviter, per workspace and per address is
// limited (lib/members/invitations.ts), and the workspace's name, which its owners choose, is
// quoted as data in the mail, never its subject.
//
// The Members dialog's action sends its mail before it answers (the SMTP server has the message by
// then), so once a refusal has come back, no mail for it can still arrive: counting at that point is
// not a race.
let env: AuthTestEnv;
let smtp: SmtpServer;
let app: RunningApp;
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let members: typeof import("../../lib/members/index.ts");
let invitations: typeof import("../../lib/members/invitations.ts");
let db: typeof import("../../lib/db/client.ts").db;

beforeAll(async () => {
  env = await startAuthTestApp();
  ({ app, smtp } = env);
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
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

type Person = { id: number; email: string; cookie: string };
async function person(label: string): Promise<Person> {
  const u = await users.createUser({ email: fresh(label), password: PASSWORD });
  return { ...u, cookie: await signInCookie(app.url, u.email, PASSWORD) };
}
async function workspaceOf(owner: Person, name = `Team ${n}`) {
  const slug = `mail-${++n}`;
  await ws.createWorkspace({ slug, name, owner: owner.email, plan: "free" });
  return slug;
}

type Answer = { ok: boolean; code?: string; error?: string; data?: { id: number; url: string; mailed: boolean } };
/** The Members dialog's "Send invitation", as the browser calls it. */
const invite = (who: Person, slug: string, email: string) =>
  callAction<Answer>(
    app.url,
    { page: `/w/${slug}/members`, file: "app/w/[slug]/members/actions.ts", name: "inviteAction", cookie: who.cookie },
    [slug, { email, role: "member" }],
  );
const revoke = (who: Person, slug: string, id: number) =>
  callAction<Answer>(
    app.url,
    { page: `/w/${slug}/members`, file: "app/w/[slug]/members/actions.ts", name: "revokeInvitationAction", cookie: who.cookie },
    [slug, { id }],
  );
const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));

describe("how many invitation mails go out", { timeout: 120_000 }, () => {
  test("per inviter and per workspace: the mail after the hour's limit is refused and not sent; another inviter elsewhere still invites", async () => {
    const { limit } = invitations.INVITE_MAILS_PER_INVITER;
    expect(invitations.INVITE_MAILS_PER_WORKSPACE.limit).toBe(limit);
    const owner = await person("bulk-owner");
    const slug = await workspaceOf(owner);
    const second = await workspaceOf(owner);
    const admin = await person("bulk-admin");
    await members.addMember({ slug, email: admin.email, role: "admin" });
    await members.addMember({ slug: second, email: admin.email, role: "admin" });

    const sent: string[] = [];
    for (let i = 0; i < limit; i++) {
      const to = fresh("bulk-to");
      const r = await invite(owner, slug, to);
      expect(r, to).toMatchObject({ ok: true, data: { mailed: true } });
      sent.push(to);
    }
    await Promise.all(sent.map((to) => smtp.waitFor((m) => m.to.includes(to))));

    const over = fresh("bulk-over");
    const refused = await invite(owner, slug, over);
    expect(refused).toMatchObject({ ok: false, code: "rate_limit" });
    expect(refused.error).toMatch(/Too many invitations/);
    // the workspace's limit: another admin of it is refused too
    const byAdmin = fresh("bulk-by-admin");
    expect(await invite(admin, slug, byAdmin)).toMatchObject({ ok: false, code: "rate_limit" });
    // the inviter's limit: the same owner in another workspace is refused too
    const elsewhere = fresh("bulk-elsewhere");
    expect(await invite(owner, second, elsewhere)).toMatchObject({ ok: false, code: "rate_limit" });
    // refused entirely: no invitation stands, no mail went out
    for (const to of [over, byAdmin, elsewhere]) {
      expect(await db().invitation.count({ where: { email: to } })).toBe(0);
      expect(mailsTo(to)).toHaveLength(0);
    }
    // Neither limit is global: the other admin invites from the other workspace.
    const fine = fresh("bulk-fine");
    expect(await invite(admin, second, fine)).toMatchObject({ ok: true, data: { mailed: true } });
    await smtp.waitFor((m) => m.to.includes(fine));
  });

  test("per address: revoking and inviting again stops after the day's limit, from any workspace", async () => {
    const { limit } = invitations.INVITE_MAILS_PER_ADDRESS;
    const owner = await person("again-owner");
    const slug = await workspaceOf(owner);
    const target = fresh("again-target");
    for (let i = 0; i < limit; i++) {
      const r = await invite(owner, slug, target);
      expect(r).toMatchObject({ ok: true, data: { mailed: true } });
      expect(await revoke(owner, slug, r.data!.id)).toMatchObject({ ok: true });
    }
    await smtp.waitFor(() => mailsTo(target).length === limit);

    const refused = await invite(owner, slug, target);
    expect(refused).toMatchObject({ ok: false, code: "rate_limit" });
    const other = await person("again-other");
    const otherSlug = await workspaceOf(other);
    expect(await invite(other, otherSlug, target)).toMatchObject({ ok: false, code: "rate_limit" });
    expect(await db().invitation.count({ where: { email: target } })).toBe(0);
    expect(mailsTo(target)).toHaveLength(limit);
    // the inviter's own budget is not spent by the refusals: another address is still invited
    const next = fresh("again-next");
    expect(await invite(owner, slug, next)).toMatchObject({ ok: true, data: { mailed: true } });
  });
});

describe("what an invitation mail says", () => {
  test("a fixed subject; the body names inviter and invitee and quotes the workspace name as data, escaped in HTML", async () => {
    const owner = await person("phish-owner");
    const name = `URGENT: verify your bank <a href="https://evil.test">at evil.test</a>`;
    const slug = await workspaceOf(owner, name);
    const invitee = fresh("phish-to");
    expect(await invite(owner, slug, invitee)).toMatchObject({ ok: true, data: { mailed: true } });
    const mail = await smtp.waitFor((m) => m.to.includes(invitee));

    expect(mail.subject).toBe("Invitation to join a workspace on Linkhop");
    expect(mail.subject).not.toContain("URGENT");
    expect(mail.text.startsWith(name)).toBe(false);
    expect(mail.text).toContain(`${owner.email} invited ${invitee} to the workspace ${JSON.stringify(name)} on Linkhop`);
    expect(mail.html).toBeDefined();
    expect(mail.html).not.toContain('<a href="https://evil.test">');
    expect(mail.html).toContain("&lt;a href=&quot;https://evil.test&quot;&gt;at evil.test&lt;/a&gt;");
    expect(mail.html).toContain(`${owner.email} invited ${invitee} to the workspace`);
  });
});
