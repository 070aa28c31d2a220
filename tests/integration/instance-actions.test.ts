import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { callAction } from "../support/actions.ts";
import { signInCookie } from "../support/session.ts";
import { formsOf } from "./security-auth-forms.ts";

// The Instance page and its server actions over HTTP against the built app: only instance
// administrators (granted, or listed in INSTANCE_ADMINS) open the page or run an action; anyone
// else gets 404 for the page and a forbidden answer from every action, with nothing changed. The
// sign-up form obeys the sign-up mode on the server, whatever the page showed.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let inst: typeof import("../../lib/instance/index.ts");
let dbc: typeof import("../../lib/db/client.ts");
const LISTED = "listed-admin@example.test";

beforeAll(async () => {
  database = await createTestDatabase();
  process.env.INSTANCE_ADMINS = LISTED;
  await useDatabaseInProcess(database.url);
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  inst = await import("../../lib/instance/index.ts");
  dbc = await import("../../lib/db/client.ts");
  app = await startApp(database.url, { INSTANCE_ADMINS: LISTED, SIGNUP_MODE: "invite" });
});
afterAll(async () => {
  await app?.stop();
  delete process.env.INSTANCE_ADMINS;
  await dbc?.disconnectDb();
  await database?.drop();
});

let n = 0;
async function account(email = `u-${++n}@example.test`) {
  const u = await users.createUser({ email, password: "password1" });
  return { ...u, cookie: await signInCookie(app.url, u.email, "password1") };
}

const ACTIONS = "app/instance/actions.ts";
const act = <T>(cookie: string, name: string, arg: unknown) =>
  callAction<{ ok: boolean; code?: string; error?: string; data?: T }>(app.url, { page: "/instance", file: ACTIONS, name, cookie }, [arg]);

async function statusOf(path: string, cookie?: string) {
  return (await fetch(app.url + path, { headers: cookie ? { cookie } : {}, redirect: "manual" })).status;
}

describe("the Instance page", () => {
  test("a non-admin (even a workspace owner) gets 404 and a forbidden answer from every action, and nothing changes", async () => {
    const owner = await account();
    const slug = `owned-${n}`;
    await ws.createWorkspace({ slug, name: "Owned", owner: owner.email, plan: "free" });
    expect(await statusOf("/instance", owner.cookie)).toBe(404);
    const before = await inst.signupSetting();
    const calls: [string, unknown][] = [
      ["setWorkspacePlanAction", { slug, plan: "business" }],
      ["setWorkspaceActiveAction", { slug, active: false }],
      ["setSignupModeAction", { mode: "open" }],
    ];
    for (const [name, arg] of calls) {
      expect(await act(owner.cookie, name, arg), name).toEqual({
        ok: false,
        code: "forbidden",
        error: "Only an instance administrator can do this.",
      });
    }
    expect(await ws.findWorkspace(slug)).toMatchObject({ plan: "free", active: true });
    expect(await inst.signupSetting()).toEqual(before);
    // signed out: the page sends to sign-in and comes back
    const res = await fetch(app.url + "/instance", { redirect: "manual" });
    expect(res.headers.get("location")).toContain(`/login?next=${encodeURIComponent("/instance")}`);
  });

  test("an admin granted by the CLI's service changes a plan, deactivates and activates, and sets sign-up", async () => {
    const admin = await account();
    await inst.setInstanceAdmin({ email: admin.email });
    const owner = await users.createUser({ email: `owner-${++n}@example.test`, password: "password1" });
    const slug = `target-${n}`;
    await ws.createWorkspace({ slug, name: "Target", owner: owner.email, plan: "free" });
    expect(await statusOf("/instance", admin.cookie)).toBe(200);
    const page = await (await fetch(`${app.url}/instance?q=${slug}`, { headers: { cookie: admin.cookie } })).text();
    expect(page).toContain(`instance-workspace-${slug}`);

    expect(await act(admin.cookie, "setWorkspacePlanAction", { slug, plan: "team" })).toEqual({ ok: true, data: { slug, plan: "team" } });
    expect(await act(admin.cookie, "setWorkspacePlanAction", { slug, plan: "platinum" })).toMatchObject({ ok: false, code: "validation" });
    expect(await act(admin.cookie, "setWorkspaceActiveAction", { slug, active: false })).toEqual({
      ok: true,
      data: { slug, active: false },
    });
    expect(await ws.findWorkspace(slug)).toMatchObject({ plan: "team", active: false });
    expect(await act(admin.cookie, "setWorkspaceActiveAction", { slug, active: true })).toEqual({ ok: true, data: { slug, active: true } });
    expect(await act(admin.cookie, "setWorkspaceActiveAction", { slug: "no-such-workspace", active: true })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await act(admin.cookie, "setSignupModeAction", { mode: "invite" })).toMatchObject({
      ok: true,
      data: { mode: "invite", source: "instance" },
    });
    expect(await act(admin.cookie, "setSignupModeAction", { mode: { gt: "" } })).toMatchObject({ ok: false, code: "validation" });

    // revoked: refused at once, no new sign-in needed
    await inst.setInstanceAdmin({ email: admin.email, revoke: true });
    expect(await statusOf("/instance", admin.cookie)).toBe(404);
    expect(await act(admin.cookie, "setWorkspacePlanAction", { slug, plan: "free" })).toMatchObject({ ok: false, code: "forbidden" });
    expect((await ws.findWorkspace(slug)).plan).toBe("team");
  });

  test("INSTANCE_ADMINS: the listed, verified address opens the page and the workspace layout links to it", async () => {
    const listed = await account(LISTED);
    const slug = `listed-${n}`;
    await ws.createWorkspace({ slug, name: "Listed", owner: listed.email });
    expect(await statusOf("/instance", listed.cookie)).toBe(200);
    const home = await (await fetch(`${app.url}/w/${slug}`, { headers: { cookie: listed.cookie } })).text();
    expect(home).toContain('href="/instance"');
    const other = await account();
    const otherSlug = `plain-${n}`;
    await ws.createWorkspace({ slug: otherSlug, name: "Plain", owner: other.email });
    const plain = await (await fetch(`${app.url}/w/${otherSlug}`, { headers: { cookie: other.cookie } })).text();
    expect(plain).not.toContain('href="/instance"');
  });
});

describe("the sign-up form under the sign-up mode", () => {
  /** Posts the sign-up form as a browser without JavaScript does; `form` was read from the page earlier. */
  async function postSignUp(form: { fields: [string, string][] }, email: string) {
    const body = new FormData();
    for (const [k, v] of form.fields) body.append(k, v);
    body.append("email", email);
    body.append("password", "password1");
    const res = await fetch(`${app.url}/signup`, { method: "POST", body, redirect: "manual" });
    return { status: res.status, html: await res.text(), location: res.headers.get("location") };
  }
  const signUpForm = async () =>
    formsOf(await (await fetch(`${app.url}/signup`)).text()).find((f) => f.fields.some(([k]) => k.startsWith("$ACTION")))!;

  test("invite: a stranger is refused, the invited address is mailed the link that makes its account; closed refuses a form loaded before", async () => {
    await inst.setSignupMode({ mode: "invite" });
    expect(await (await fetch(`${app.url}/login`)).text()).toContain("Create an account");
    const form = await signUpForm();
    expect(form).toBeDefined();
    const stranger = `stranger-${++n}@example.test`;
    const refused = await postSignUp(form, stranger);
    expect(refused.html).toContain("Sign-up on this Linkhop is by invitation only.");
    expect(await dbc.db().user.count({ where: { email: stranger } })).toBe(0);

    const { inviteMember } = await import("../../lib/members/invitations.ts");
    const owner = await users.createUser({ email: `inv-owner-${++n}@example.test`, password: "password1" });
    const slug = `inv-${n}`;
    await ws.createWorkspace({ slug, name: "Inviting", owner: owner.email, plan: "team" });
    const invited = `invited-${n}@example.test`;
    await inviteMember(owner.id, slug, { email: invited, role: "member" });
    // no account yet: a link goes to the address, and only that link makes it (lib/auth/pending-signup.ts)
    const made = await postSignUp(form, invited);
    expect(made.status).toBe(303);
    expect(made.location).toBe("/signup/check-mail");
    expect(await dbc.db().user.count({ where: { email: invited } })).toBe(0);
    expect(await dbc.db().pendingSignUp.count({ where: { email: invited } })).toBe(1);

    // closed: the page no longer offers the form, and a form kept from before is refused too
    await inst.setSignupMode({ mode: "closed" });
    expect(await signUpForm()).toBeUndefined();
    // nor does the login page point to it
    expect(await (await fetch(`${app.url}/login`)).text()).not.toContain("Create an account");
    const late = `late-${n}@example.test`;
    await inviteMember(owner.id, slug, { email: late, role: "member" });
    expect((await postSignUp(form, late)).html).toContain("Sign-up is closed on this Linkhop.");
    expect(await dbc.db().user.count({ where: { email: late } })).toBe(0);
    await inst.setSignupMode({ mode: "open" });
  });
});
