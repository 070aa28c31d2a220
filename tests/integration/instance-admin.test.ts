import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The instance administrator's services (lib/instance) against a real PostgreSQL: who is one
// (granted by the admin CLI's service, or listed in INSTANCE_ADMINS with a verified address), the
// instance permission, and the sign-up mode that every way of creating an account obeys. The
// admin CLI itself and the Instance page's actions over HTTP: instance-cli.test.ts, instance-actions.test.ts.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let inst: typeof import("../../lib/instance/index.ts");
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let dbc: typeof import("../../lib/db/client.ts");
let cfg: typeof import("../../lib/config/index.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  inst = await import("../../lib/instance/index.ts");
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  dbc = await import("../../lib/db/client.ts");
  cfg = await import("../../lib/config/index.ts");
});
afterAll(async () => {
  await dbc?.disconnectDb();
  await database?.drop();
});

/** Sets (or unsets) environment variables for the services, as a restart with them would. */
function withEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  cfg.resetConfig();
}

let n = 0;
const email = (label: string) => `${label}-${++n}@example.test`;

async function userCount(address: string) {
  return dbc.db().user.count({ where: { email: address } });
}

describe("instance administrators", () => {
  test("granted and revoked by the CLI's service; an unknown address or a bad one is refused", async () => {
    const u = await users.createUser({ email: email("grant"), password: "password1" });
    expect(await inst.isInstanceAdmin(u.id)).toBe(false);
    expect(await inst.setInstanceAdmin({ email: u.email.toUpperCase() })).toEqual({
      email: u.email,
      granted: true,
      listed: false,
      instanceAdmin: true,
    });
    expect(await inst.isInstanceAdmin(u.id)).toBe(true);
    await expect(inst.authorizeInstance({ userId: u.id }, "instance.manage")).resolves.toBeUndefined();
    expect(await inst.setInstanceAdmin({ email: u.email, revoke: true })).toMatchObject({ granted: false, instanceAdmin: false });
    expect(await inst.isInstanceAdmin(u.id)).toBe(false);
    await expect(inst.setInstanceAdmin({ email: "nobody-here@example.test" })).rejects.toMatchObject({ code: "not_found" });
    await expect(inst.setInstanceAdmin({ email: "not an address" })).rejects.toMatchObject({ code: "validation" });
  });

  test("INSTANCE_ADMINS counts an address once it is verified; signing up first with it gives nothing", async () => {
    const listed = email("listed");
    withEnv({ INSTANCE_ADMINS: ` other@example.test, ${listed.toUpperCase()} ` });
    try {
      expect(cfg.config().INSTANCE_ADMINS).toEqual(["other@example.test", listed]);
      // someone signs up with the listed address before its owner does: not verified, not an admin
      const squatter = await users.signUp({ email: listed, password: "password1" });
      expect(await inst.isInstanceAdmin(squatter.user.id)).toBe(false);
      await expect(inst.authorizeInstance({ userId: squatter.user.id }, "instance.view")).rejects.toMatchObject({ code: "forbidden" });
      expect(await inst.instanceAdminContacts()).not.toContain(listed);
      // the address's owner verifies it: now an admin, and a CLI revocation cannot undo the listing
      await dbc.db().user.update({ where: { id: squatter.user.id }, data: { emailVerifiedAt: new Date() } });
      expect(await inst.isInstanceAdmin(squatter.user.id)).toBe(true);
      expect(await inst.instanceAdminContacts()).toContain(listed);
      expect(await inst.setInstanceAdmin({ email: listed, revoke: true })).toMatchObject({
        granted: false,
        listed: true,
        instanceAdmin: true,
      });
    } finally {
      withEnv({ INSTANCE_ADMINS: undefined });
    }
    expect(cfg.config().INSTANCE_ADMINS).toEqual([]);
  });

  test("a bad INSTANCE_ADMINS or SIGNUP_MODE stops the start with the variable's name", () => {
    expect(() => cfg.parseConfig({ INSTANCE_ADMINS: "admin@example.test,not-an-email" })).toThrow(/INSTANCE_ADMINS/);
    expect(() => cfg.parseConfig({ SIGNUP_MODE: "sometimes" })).toThrow(/SIGNUP_MODE/);
    expect(cfg.parseConfig({}).SIGNUP_MODE).toBe("open");
  });

  test("the operator holds every instance permission; a workspace owner holds none", async () => {
    await expect(inst.authorizeInstance("operator", "instance.manage")).resolves.toBeUndefined();
    const owner = await users.createUser({ email: email("owner"), password: "password1" });
    await ws.createWorkspace({ slug: `own-${n}`, name: "Owned", owner: owner.email, plan: "business" });
    for (const p of Object.keys(inst.INSTANCE_PERMISSIONS) as (keyof typeof inst.INSTANCE_PERMISSIONS)[]) {
      await expect(inst.authorizeInstance({ userId: owner.id }, p)).rejects.toMatchObject({
        code: "forbidden",
        message: "Only an instance administrator can do this.",
      });
    }
  });
});

describe("workspaces as the instance administrator sees them", () => {
  test("a plan change changes the limits the workspace meets; deactivate and activate switch writes off and on", async () => {
    const { createApiKey } = await import("../../lib/keys/index.ts");
    const owner = await users.createUser({ email: email("limits"), password: "password1" });
    const slug = `limits-${n}`;
    await ws.createWorkspace({ slug, name: "Limits", owner: owner.email, plan: "free" });
    const w = await ws.findWorkspace(slug);
    await createApiKey(w, { name: "first" });
    // free: one live key
    await expect(createApiKey(w, { name: "second" })).rejects.toMatchObject({ code: "limit" });
    let row = (await ws.workspaceDirectory({ q: slug })).rows[0];
    expect(row).toMatchObject({
      slug,
      plan: { id: "free", name: "Free" },
      liveKeys: 1,
      maxKeys: 1,
      maxLinks: 500,
      members: 1,
      owner: owner.email,
    });

    expect(await ws.setPlan(slug, "team")).toEqual({ slug, plan: "team" });
    await createApiKey(w, { name: "second" });
    row = (await ws.workspaceDirectory({ q: slug })).rows[0];
    expect(row).toMatchObject({ plan: { id: "team", name: "Team" }, liveKeys: 2, maxKeys: 10, maxLinks: 50000 });
    await expect(ws.setPlan(slug, "platinum")).rejects.toMatchObject({ code: "validation" });

    expect(await ws.setActive(slug, false)).toEqual({ slug, active: false });
    await expect(ws.authorize({ userId: owner.id }, slug, "links.write")).rejects.toMatchObject({
      code: "forbidden",
      message: ws.DEACTIVATED_MESSAGE,
    });
    expect((await ws.workspaceDirectory({ q: slug })).rows[0].active).toBe(false);
    expect(await ws.setActive(slug, true)).toEqual({ slug, active: true });
    await expect(ws.authorize({ userId: owner.id }, slug, "links.write")).resolves.toMatchObject({ role: "owner" });
  });

  test("the directory is paged and searchable; page and query are bounded", async () => {
    const owner = await users.createUser({ email: email("dir"), password: "password1" });
    const tag = `dirpage${n}`;
    for (let i = 0; i < 3; i++) await ws.createWorkspace({ slug: `${tag}-${i}`, name: `Dir ${i}`, owner: owner.email });
    const found = await ws.workspaceDirectory({ q: tag });
    expect(found.total).toBe(3);
    expect(found.rows.map((r) => r.slug)).toEqual([`${tag}-0`, `${tag}-1`, `${tag}-2`]);
    expect((await ws.workspaceDirectory({ q: tag, page: 2 })).rows).toEqual([]);
    // a nonsense page is the first page; a query longer than any name is refused, not sent
    expect((await ws.workspaceDirectory({ q: tag, page: "x" })).page).toBe(1);
    await expect(ws.workspaceDirectory({ q: "a".repeat(101) })).rejects.toMatchObject({ code: "validation" });
    expect((await ws.workspaceDirectory({})).rows.length).toBeLessThanOrEqual(ws.DIRECTORY_PAGE_SIZE);
  });
});

describe("sign-up modes, enforced where accounts are made", () => {
  test("open by default; closed refuses every sign-up and leaves nothing behind", async () => {
    withEnv({ SIGNUP_MODE: undefined });
    expect(await inst.signupSetting()).toMatchObject({ mode: "open", source: "environment" });
    await users.signUp({ email: email("open"), password: "password1" });

    expect(await inst.setSignupMode({ mode: "closed" })).toMatchObject({ mode: "closed", source: "instance" });
    const refused = email("closed");
    await expect(users.signUp({ email: refused, password: "password1" })).rejects.toMatchObject({
      code: "forbidden",
      message: inst.CLOSED_MESSAGE,
    });
    expect(await userCount(refused)).toBe(0);
    // an OAuth or OpenID Connect first sign-in is a sign-up too
    const { signInWithOAuth } = await import("../../lib/auth/oauth.ts");
    const oauthEmail = email("oauth");
    await expect(
      signInWithOAuth({ provider: "oidc", providerAccountId: `sub-${n}`, email: oauthEmail, name: null, emailVerified: true }),
    ).rejects.toMatchObject({ reason: "signup_closed" });
    expect(await userCount(oauthEmail)).toBe(0);
    // the operator still makes accounts
    await users.createUser({ email: email("operator-made"), password: "password1" });
    await expect(inst.setSignupMode({ mode: "sometimes" })).rejects.toMatchObject({ code: "validation" });
    await inst.setSignupMode({ mode: "open" });
  });

  test("invite: only an address with a pending invitation to an active workspace may sign up", async () => {
    const { inviteMember } = await import("../../lib/members/invitations.ts");
    const owner = await users.createUser({ email: email("inviter"), password: "password1" });
    const slug = `invites-${n}`;
    await ws.createWorkspace({ slug, name: "Invites", owner: owner.email, plan: "team" });
    await inst.setSignupMode({ mode: "invite" });

    const stranger = email("stranger");
    await expect(users.signUp({ email: stranger, password: "password1" })).rejects.toMatchObject({ message: inst.INVITE_ONLY_MESSAGE });
    expect(await userCount(stranger)).toBe(0);

    const invited = email("invited");
    const invitation = await inviteMember(owner.id, slug, { email: invited, role: "member" });
    // an invitation alone is no ticket: the mailbox confirms first (lib/auth/pending-signup.ts)
    await expect(users.signUp({ email: invited, password: "password1" })).rejects.toMatchObject({ code: "forbidden" });
    expect(await userCount(invited)).toBe(0);
    const made = await users.signUp({ email: invited.toUpperCase(), password: "password1" }, { mailboxConfirmed: true });
    expect(made.user.email).toBe(invited);

    // an expired invitation, or one to a deactivated workspace, is no ticket
    const late = email("late");
    const lateInv = await inviteMember(owner.id, slug, { email: late, role: "member" });
    await dbc.db().invitation.update({ where: { id: lateInv.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(users.signUp({ email: late, password: "password1" }, { mailboxConfirmed: true })).rejects.toMatchObject({
      code: "forbidden",
    });
    const dormant = email("dormant");
    await inviteMember(owner.id, slug, { email: dormant, role: "member" });
    await ws.setActive(slug, false);
    await expect(users.signUp({ email: dormant, password: "password1" }, { mailboxConfirmed: true })).rejects.toMatchObject({
      code: "forbidden",
    });
    await ws.setActive(slug, true);
    expect(invitation.email).toBe(invited);

    const { signInWithOAuth } = await import("../../lib/auth/oauth.ts");
    await expect(
      signInWithOAuth({ provider: "oidc", providerAccountId: `sub-${n}`, email: email("oauth-stranger"), name: null, emailVerified: true }),
    ).rejects.toMatchObject({ reason: "signup_invite_only" });
    await inst.setSignupMode({ mode: "open" });
  });

  test("SIGNUP_MODE is the default until the Instance page sets a mode", async () => {
    await dbc.db().instanceSettings.deleteMany({});
    withEnv({ SIGNUP_MODE: "closed" });
    try {
      expect(await inst.signupSetting()).toEqual({ mode: "closed", source: "environment", environmentDefault: "closed" });
      await expect(users.signUp({ email: email("env-closed"), password: "password1" })).rejects.toMatchObject({ code: "forbidden" });
      await inst.setSignupMode({ mode: "open" });
      expect(await inst.signupSetting()).toEqual({ mode: "open", source: "instance", environmentDefault: "closed" });
      await users.signUp({ email: email("page-open"), password: "password1" });
    } finally {
      withEnv({ SIGNUP_MODE: undefined });
    }
  });
});
