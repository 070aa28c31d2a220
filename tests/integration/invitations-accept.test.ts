import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";

// Invitations (lib/members/invitations.ts) against a real PostgreSQL and a real SMTP server on
// loopback: the mail and its link, the stored hash, who may invite whom, accepting (email must
// match, once, before expiry) with member.joined { via: "invitation" }, renewing and revoking.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let smtp: SmtpServer;
let inv: typeof import("../../lib/members/invitations.ts");
let members: typeof import("../../lib/members/index.ts");
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let dbc: typeof import("../../lib/db/client.ts");
let resetConfig: () => void;

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  smtp = await startSmtpServer();
  process.env.SMTP_URL = smtp.url;
  process.env.APP_URL = "http://app.linkhop.test";
  ({ resetConfig } = await import("../../lib/config/index.ts"));
  resetConfig();
  inv = await import("../../lib/members/invitations.ts");
  members = await import("../../lib/members/index.ts");
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  dbc = await import("../../lib/db/client.ts");
});
afterAll(async () => {
  await smtp?.stop();
  await dbc?.disconnectDb();
  await database?.drop();
});

let n = 0;
const user = (label: string) => users.createUser({ email: `${label}-${++n}@example.test`, password: "password1", name: `${label} ${n}` });
async function workspace() {
  const owner = await user("owner");
  const w = await ws.createWorkspace({ slug: `inv-${++n}`, name: `Invite Co ${n}`, owner: owner.email, plan: "team" });
  await dbc.db().webhookEndpoint.create({ data: { workspaceId: w.id, url: "https://hooks.example.test/x", secret: "whsec_test" } });
  return { ...w, slug: `inv-${n}`, owner };
}
const tokenOf = (url: string) => url.split("/invite/")[1];

describe("invitations", () => {
  test("invite -> mail with the accept link -> accept: a member, member.joined via invitation", async () => {
    const w = await workspace();
    const email = `new-${++n}@example.test`;
    const sent = await inv.inviteMember(w.owner.id, w.slug, { email: email.toUpperCase(), role: "admin" });
    expect(sent).toMatchObject({ email, role: "admin", mailed: true });
    expect(sent.url).toMatch(/^http:\/\/app\.linkhop\.test\/invite\/[A-Za-z0-9_-]{43}$/);

    const mail = await smtp.waitFor((m) => m.to.includes(email));
    expect(mail.subject).toBe("Invitation to join a workspace on Linkhop");
    expect(mail.text).toContain(`${w.owner.email} invited ${email} to the workspace "Invite Co ${n - 1}" on Linkhop`);
    expect(mail.text).toContain(sent.url);
    expect(mail.text).toContain("as an admin");
    expect(mail.html).toContain(`href="${sent.url}"`);

    // Only the hash is stored; it expires in 7 days.
    const row = await dbc.db().invitation.findFirstOrThrow({ where: { email } });
    const token = tokenOf(sent.url);
    expect(row.tokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(Math.round((row.expiresAt.getTime() - row.createdAt.getTime()) / 86_400_000)).toBe(7);
    expect((await inv.listInvitations(w.id)).map((i) => i.email)).toEqual([email]);

    expect(await inv.lookupInvitation(token)).toEqual({
      state: "pending",
      email,
      role: "admin",
      workspace: { slug: w.slug, name: expect.stringMatching(/^Invite Co \d+$/) },
    });
    expect(await inv.lookupInvitation("nonsense")).toEqual({ state: "invalid" });

    // Another account cannot use the link.
    const stranger = await user("stranger");
    await expect(inv.acceptInvitation(stranger.id, token)).rejects.toMatchObject({ code: "forbidden" });

    const invitee = await users.createUser({ email, password: "password1" });
    const accepted = await inv.acceptInvitation(invitee.id, token);
    expect(accepted).toMatchObject({ slug: w.slug, member: { email, role: "admin", via: "invitation" } });
    const membership = await dbc.db().membership.findFirstOrThrow({ where: { workspaceId: w.id, userId: invitee.id } });
    expect(membership.role).toBe("admin");
    const events = await dbc.db().webhookEvent.findMany({ where: { workspaceId: w.id, type: "member.joined" } });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].body).data).toEqual({ member: { id: membership.id, email, role: "admin", via: "invitation" } });

    // Used: a second accept changes nothing and sends nothing; the invitation is no longer pending.
    expect(await inv.acceptInvitation(invitee.id, token)).toEqual({ slug: w.slug, member: null });
    expect(await dbc.db().webhookEvent.count({ where: { workspaceId: w.id, type: "member.joined" } })).toBe(1);
    expect(await inv.lookupInvitation(token)).toMatchObject({ state: "accepted" });
    expect(await inv.listInvitations(w.id)).toEqual([]);
  });

  test("who may invite: owners and admins; only owners invite owners; not someone already in", async () => {
    const w = await workspace();
    const [admin, member] = [await user("admin"), await user("member")];
    await members.addMember({ slug: w.slug, email: admin.email, role: "admin" });
    await members.addMember({ slug: w.slug, email: member.email, role: "member" });
    await expect(inv.inviteMember(member.id, w.slug, { email: "x@example.test", role: "member" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(inv.inviteMember(admin.id, w.slug, { email: "x@example.test", role: "owner" })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(inv.inviteMember(admin.id, w.slug, { email: member.email, role: "member" })).rejects.toMatchObject({ code: "conflict" });
    await expect(inv.inviteMember(admin.id, w.slug, { email: "nope", role: "member" })).rejects.toMatchObject({ code: "validation" });
    const outsider = await user("outsider");
    await expect(inv.inviteMember(outsider.id, w.slug, { email: "x@example.test", role: "member" })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await inv.inviteMember(admin.id, w.slug, { email: "x@example.test", role: "admin" })).toMatchObject({ mailed: true });
  });

  test("renewing replaces the pending invitation; revoked and expired links stop working", async () => {
    const w = await workspace();
    const email = `twice-${++n}@example.test`;
    const first = await inv.inviteMember(w.owner.id, w.slug, { email, role: "member" });
    const second = await inv.inviteMember(w.owner.id, w.slug, { email, role: "member" });
    expect(await dbc.db().invitation.count({ where: { workspaceId: w.id, email } })).toBe(1);
    expect(await inv.lookupInvitation(tokenOf(first.url))).toEqual({ state: "invalid" });

    const invitee = await users.createUser({ email, password: "password1" });
    await dbc.db().invitation.updateMany({ where: { id: second.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await inv.lookupInvitation(tokenOf(second.url))).toMatchObject({ state: "expired" });
    await expect(inv.acceptInvitation(invitee.id, tokenOf(second.url))).rejects.toMatchObject({ code: "conflict" });

    const third = await inv.inviteMember(w.owner.id, w.slug, { email, role: "member" });
    await inv.revokeInvitation(w.owner.id, w.slug, third.id);
    await expect(inv.acceptInvitation(invitee.id, tokenOf(third.url))).rejects.toMatchObject({ code: "not_found" });
    await expect(inv.revokeInvitation(w.owner.id, w.slug, third.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await dbc.db().membership.count({ where: { workspaceId: w.id, userId: invitee.id } })).toBe(0);
  });

  test("when the mail cannot be sent, the invitation stands and its link is returned", async () => {
    const w = await workspace();
    process.env.SMTP_URL = "smtp://127.0.0.1:1";
    resetConfig();
    try {
      const r = await inv.inviteMember(w.owner.id, w.slug, { email: "offline@example.test", role: "member" });
      expect(r).toMatchObject({ mailed: false, email: "offline@example.test" });
      expect(r.mailError).toBeTruthy();
      expect(await inv.lookupInvitation(tokenOf(r.url))).toMatchObject({ state: "pending" });
    } finally {
      process.env.SMTP_URL = smtp.url;
      resetConfig();
    }
  });
});
