import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { callAction } from "../support/actions.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { signInCookie } from "../support/session.ts";
import { sessionCookieOf, submitForm } from "./security-auth-forms.ts";

// The second factor (lib/auth/two-factor.ts) against the running server: enrolment with the secret
// the server generated and a known time (lib/clock.ts), the sign-in's code step over HTTP (the
// password alone gives no session), recovery codes, wrong codes counted by the sign-in limit, no
// replay, turning it off, and workspaces that require it (lib/workspaces/second-factor.ts).

// The app's clock starts here (LINKHOP_CLOCK_START) and runs at real speed; enrolment in this
// process happens an hour earlier on its own clock, so the steps it spends come before the app's.
const APP_START = Date.parse("2030-06-01T12:00:00Z");
const ENROL_AT = APP_START - 3_600_000;
const AUTH_SECRET = "test-secret-test-secret-test-secret"; // what startApp gives the app: the secret's encryption key comes from it
const PENDING_COOKIE = "linkhop.second-factor";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let appStartedAt = 0;
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let tf: typeof import("../../lib/auth/two-factor.ts");
let clock: typeof import("../../lib/clock.ts");
let dbm: typeof import("../../lib/db/client.ts");
let keys: typeof import("../../lib/keys/index.ts");

beforeAll(async () => {
  process.env.AUTH_SECRET = AUTH_SECRET;
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  tf = await import("../../lib/auth/two-factor.ts");
  clock = await import("../../lib/clock.ts");
  dbm = await import("../../lib/db/client.ts");
  keys = await import("../../lib/keys/index.ts");
  app = await startApp(database.url, { LINKHOP_CLOCK_START: new Date(APP_START).toISOString() });
  appStartedAt = Date.now();
});

afterAll(async () => {
  clock?.setClock(null);
  await app?.stop();
  await dbm?.disconnectDb();
  await database?.drop();
});

/** The app's "now", within the few seconds its clock started after the start instant (codes of the next and last step count too). */
const appNow = () => APP_START + (Date.now() - appStartedAt);
const codeAt = (secret: string, timestamp: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp });
/** A 6-digit code that is none of the codes around `timestamp`: certainly wrong. */
function wrongCode(secret: string, timestamp: number): string {
  const near = new Set([-3, -2, -1, 0, 1, 2, 3].map((d) => codeAt(secret, timestamp + d * 30_000)));
  for (let i = 0; ; i++) {
    const c = String(i).padStart(6, "0");
    if (!near.has(c)) return c;
  }
}

let n = 0;
/** A new account with a second factor, enrolled in this process at ENROL_AT with the secret the server generated. */
async function enrolledAccount() {
  const email = `tf-${++n}@example.test`;
  const user = await users.createUser({ email, password: "password1" });
  clock.setClock(() => ENROL_AT);
  try {
    await tf.startEnrolment(user.id);
    const status = await tf.twoFactorStatus(user.id);
    if (status.state !== "pending") throw new Error(`enrolment is ${status.state}`);
    expect(status.uri).toMatch(/^otpauth:\/\/totp\/Linkhop:/);
    expect(status.qrSvg).toContain("<svg");
    // not on before a code confirms it
    expect(await tf.hasSecondFactor(user.id)).toBe(false);
    const proof = { password: "password1", signedInAt: null };
    await expect(tf.confirmEnrolment(user.id, { code: wrongCode(status.secret, ENROL_AT) }, proof)).rejects.toMatchObject({
      code: "validation",
    });
    // a session alone cannot turn it on: the right code needs the account's password too
    for (const password of ["", "not the password"]) {
      await expect(
        tf.confirmEnrolment(user.id, { code: codeAt(status.secret, ENROL_AT) }, { password, signedInAt: null }),
      ).rejects.toMatchObject({
        code: "validation",
        issues: [{ path: "password" }],
      });
    }
    expect(await tf.hasSecondFactor(user.id)).toBe(false);
    const { recoveryCodes } = await tf.confirmEnrolment(user.id, { code: codeAt(status.secret, ENROL_AT) }, proof);
    expect(recoveryCodes).toHaveLength(10);
    expect(await tf.hasSecondFactor(user.id)).toBe(true);
    return { id: user.id, email, secret: status.secret, recoveryCodes };
  } finally {
    clock.setClock(null);
  }
}

/** The password step on the login form: the pending cookie (no session) when the account has a second factor. */
async function passwordStep(email: string, next?: string) {
  const r = await submitForm(app.url, next ? `/login?next=${encodeURIComponent(next)}` : "/login", { email, password: "password1" });
  expect(r.status).toBe(303);
  expect(r.location).toMatch(/^\/login\/two-factor/);
  expect(sessionCookieOf(r.cookies)).toBeUndefined();
  const pending = r.cookies.find((c) => c.startsWith(`${PENDING_COOKIE}=`));
  expect(pending).toBeDefined();
  return { pending: pending!, location: r.location! };
}

/** The code step on the second-step form, with the pending cookie. */
async function codeStep(pending: string, code: string, path = "/login/two-factor") {
  return submitForm(app.url, path, { code }, { headers: { cookie: pending } });
}

describe("signing in with a second factor", () => {
  test("the password alone gives no session, on the form and on Auth.js's endpoint; the right code does", async () => {
    const me = await enrolledAccount();
    // Auth.js's HTTP endpoint: refused with "second_factor", no session cookie
    await expect(signInCookie(app.url, me.email, "password1")).rejects.toThrow(/sign-in failed/);
    const endpoint = await httpSignIn(me.email, "password1");
    expect(endpoint).toEqual({ signedIn: false, code: "second_factor" });
    // the pending cookie alone opens nothing
    const { pending, location } = await passwordStep(me.email, "/account");
    expect(location).toBe(`/login/two-factor?next=${encodeURIComponent("/account")}`);
    const account = await fetch(`${app.url}/account`, { headers: { cookie: pending }, redirect: "manual" });
    expect(account.status).toBe(307);
    expect(account.headers.get("location")).toContain("/login");
    // the code step
    const r = await codeStep(pending, codeAt(me.secret, appNow()), location);
    expect(r.status).toBe(303);
    expect(r.location).toBe("/account");
    const session = sessionCookieOf(r.cookies);
    expect(session).toBeDefined();
    const page = await fetch(`${app.url}/account`, { headers: { cookie: session! }, redirect: "manual" });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(me.email);
  });

  test("accounts without a second factor sign in with the password alone, as before", async () => {
    const email = `plain-${++n}@example.test`;
    await users.createUser({ email, password: "password1" });
    const r = await submitForm(app.url, "/login", { email, password: "password1" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/");
    expect(sessionCookieOf(r.cookies)).toBeDefined();
  });

  test("a code is accepted once: the same code again is refused", async () => {
    const me = await enrolledAccount();
    const code = codeAt(me.secret, appNow());
    const first = await codeStep((await passwordStep(me.email)).pending, code);
    expect(sessionCookieOf(first.cookies)).toBeDefined();
    const again = await codeStep((await passwordStep(me.email)).pending, code);
    expect(again.status).toBe(200);
    expect(again.html).toContain("That code is not right");
    expect(sessionCookieOf(again.cookies)).toBeUndefined();
  });

  test("a recovery code signs in once; the second use is refused", async () => {
    const me = await enrolledAccount();
    const [recovery] = me.recoveryCodes;
    // case and dashes do not matter
    const first = await codeStep(
      (await passwordStep(me.email)).pending,
      recovery.toUpperCase().replace(/-/g, " "),
      "/login/two-factor?recovery=1",
    );
    expect(first.status).toBe(303);
    expect(sessionCookieOf(first.cookies)).toBeDefined();
    const again = await codeStep((await passwordStep(me.email)).pending, recovery, "/login/two-factor?recovery=1");
    expect(again.status).toBe(200);
    expect(again.html).toContain("That code is not right");
    expect(sessionCookieOf(again.cookies)).toBeUndefined();
    expect((await tf.twoFactorStatus(me.id)) as { recoveryCodesLeft?: number }).toMatchObject({ state: "on", recoveryCodesLeft: 9 });
  });

  test("wrong codes are refused and counted like wrong passwords: after 10, the right code and the password are refused too", async () => {
    const me = await enrolledAccount();
    const { pending } = await passwordStep(me.email);
    for (let i = 0; i < 10; i++) {
      const r = await codeStep(pending, wrongCode(me.secret, appNow()));
      expect(r.status).toBe(200);
      expect(r.html).toContain("That code is not right");
      expect(sessionCookieOf(r.cookies)).toBeUndefined();
    }
    const right = await codeStep(pending, codeAt(me.secret, appNow()));
    expect(right.html).toContain("Too many attempts. Try again in 15 minutes.");
    expect(sessionCookieOf(right.cookies)).toBeUndefined();
    // the same allowance as the password's (per account and client address)
    const password = await submitForm(app.url, "/login", { email: me.email, password: "password1" });
    expect(password.status).toBe(200);
    expect(password.html).toContain("Too many attempts. Try again in 15 minutes.");
  });

  test("a forged or expired pending cookie is no sign-in", async () => {
    const me = await enrolledAccount();
    const { pending } = await passwordStep(me.email);
    const [name, value] = pending.split("=");
    const [uid, sv, exp, mac] = value.split(".");
    const later = `${name}=${uid}.${sv}.${Number(exp) + 3600}.${mac}`;
    // The page checks only the form and expiry (a locked account's decoy must look like a real
    // pending sign-in), but the code step checks the token: the right code with it makes no session.
    const forged = await codeStep(later, codeAt(me.secret, appNow()));
    expect(forged.status).toBe(200);
    expect(forged.html).toContain("That code is not right, or your sign-in took too long.");
    expect(sessionCookieOf(forged.cookies)).toBeUndefined();
    const garbage = await fetch(`${app.url}/login/two-factor`, { headers: { cookie: `${name}=not-a-token` }, redirect: "manual" });
    expect(garbage.status).toBe(307); // back to the password
    // the cookie's token is good for 5 minutes on the app's clock
    clock.setClock(() => appNow() + 6 * 60_000);
    try {
      expect(await tf.pendingSignInUser(value)).toBeNull();
      clock.setClock(() => appNow());
      expect(await tf.pendingSignInUser(value)).toMatchObject({ id: me.id });
    } finally {
      clock.setClock(null);
    }
  });
});

describe("the other password sign-ins ask for the code too", () => {
  test("the invitation page: the password leads to the code step, which leads back to the invitation", async () => {
    const me = await enrolledAccount();
    const ownerEmail = `tf-inviter-${++n}@example.test`;
    const owner = await users.createUser({ email: ownerEmail, password: "password1" });
    const w = await ws.createWorkspace({ slug: `tf-inv-${n}`, name: `Invite ${n}`, owner: ownerEmail, plan: "team" });
    const { inviteMember } = await import("../../lib/members/invitations.ts");
    const token = (await inviteMember(owner.id, w.slug, { email: me.email, role: "member" })).url.split("/invite/")[1];

    const r = await submitForm(app.url, `/invite/${token}?mode=signin`, { password: "password1" }, { containing: "Sign in and join" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login/two-factor?next=${encodeURIComponent(`/invite/${token}`)}`);
    expect(sessionCookieOf(r.cookies)).toBeUndefined();
    const pending = r.cookies.find((c) => c.startsWith(`${PENDING_COOKIE}=`))!;
    const done = await codeStep(pending, codeAt(me.secret, appNow()), r.location!);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`/invite/${token}`);
    const session = sessionCookieOf(done.cookies);
    expect(session).toBeDefined();
    const page = await fetch(`${app.url}/invite/${token}`, { headers: { cookie: session! } });
    expect(await page.text()).toContain(`Accept and join Invite ${n}`);
  });

  test("changing the password: the new password alone gives no session either", async () => {
    const me = await enrolledAccount();
    const { pending } = await passwordStep(me.email);
    const session = sessionCookieOf((await codeStep(pending, codeAt(me.secret, appNow()))).cookies)!;
    const r = await submitForm(
      app.url,
      "/account",
      { current: "password1", newPassword: "password2" },
      { headers: { cookie: session }, containing: "Change password" },
    );
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login/two-factor?next=${encodeURIComponent("/account?changed=1")}`);
    expect(sessionCookieOf(r.cookies)).toBeUndefined();
    const again = r.cookies.find((c) => c.startsWith(`${PENDING_COOKIE}=`))!;
    // a recovery code: the app code's step was just spent
    const done = await codeStep(again, me.recoveryCodes[0], r.location!);
    expect(done.status).toBe(303);
    expect(done.location).toBe("/account?changed=1");
    expect(sessionCookieOf(done.cookies)).toBeDefined();
  });
});

describe("turning the second factor off", () => {
  test("needs a current code or a recovery code", async () => {
    const me = await enrolledAccount();
    const at = ENROL_AT + 10 * 60_000;
    clock.setClock(() => at);
    try {
      await expect(tf.disableSecondFactor(me.id, { code: "" })).rejects.toMatchObject({ code: "validation" });
      await expect(tf.disableSecondFactor(me.id, { code: wrongCode(me.secret, at) })).rejects.toMatchObject({ code: "validation" });
      await expect(tf.disableSecondFactor(me.id, { code: "aaaa-bbbb-cccc" })).rejects.toMatchObject({ code: "validation" });
      expect(await tf.hasSecondFactor(me.id)).toBe(true);
      await tf.disableSecondFactor(me.id, { code: codeAt(me.secret, at) });
      expect(await tf.hasSecondFactor(me.id)).toBe(false);
    } finally {
      clock.setClock(null);
    }
    // and then the password alone signs in again
    expect(await signInCookie(app.url, me.email, "password1")).toMatch(/authjs\.session-token=/);

    const other = await enrolledAccount();
    await tf.disableSecondFactor(other.id, { code: other.recoveryCodes[3] });
    expect(await tf.hasSecondFactor(other.id)).toBe(false);
  });
});

describe("the operator", () => {
  test("removes the second factor of someone who lost phone and recovery codes (admin CLI), ending their sessions", async () => {
    const me = await enrolledAccount();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...nodeFlags, adminCli, "user:second-factor-off", "--email", me.email],
      {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: { ...process.env, DATABASE_URL: database.url },
      },
    );
    expect(JSON.parse(stdout)).toEqual({ email: me.email, secondFactor: false });
    expect(await tf.hasSecondFactor(me.id)).toBe(false);
    expect(await dbm.db().twoFactorRecoveryCode.count({ where: { userId: me.id } })).toBe(0);
    expect(await signInCookie(app.url, me.email, "password1")).toMatch(/authjs\.session-token=/);
  });
});

describe("a workspace that requires a second factor", () => {
  test("keeps a member without one out of its pages and its API-key management, and lets them in after enrolling", async () => {
    const owner = await enrolledAccount();
    const slug = `tf-team-${++n}`;
    const workspace = await ws.createWorkspace({ slug, name: `Team ${n}`, owner: owner.email, plan: "team" });
    const adminEmail = `tf-admin-${n}@example.test`;
    const admin = await users.createUser({ email: adminEmail, password: "password1" });
    await dbm.db().membership.create({ data: { workspaceId: workspace.id, userId: admin.id, role: "admin" } });
    const key = await keys.createApiKey(await dbm.db().workspace.findUniqueOrThrow({ where: { slug } }), {
      name: "ci",
      expiresInDays: null,
    });

    // only an owner with a second factor on a plan that has the feature turns it on
    await expect(ws.authorize({ userId: admin.id }, slug, "security.manage")).rejects.toMatchObject({ code: "forbidden" });
    const ownerCtx = await ws.authorize({ userId: owner.id }, slug, "security.manage");
    await ws.setSecondFactorRequired(ownerCtx, { require: true });

    const cookie = await signInCookie(app.url, adminEmail, "password1");
    const revoke = (id: number) =>
      callAction<{ ok: boolean; error?: string }>(
        app.url,
        { page: `/w/${slug}/settings/api-keys`, file: "app/w/[slug]/settings/api-keys/actions.ts", name: "revokeKeyAction", cookie },
        [slug, id],
      );
    for (const path of [`/w/${slug}`, `/w/${slug}/links`, `/w/${slug}/settings/api-keys`]) {
      const r = await fetch(`${app.url}${path}`, { headers: { cookie }, redirect: "manual" });
      expect(r.status, path).toBe(307);
      expect(r.headers.get("location"), path).toContain(`/account/two-factor-required?workspace=${slug}`);
    }
    const required = await fetch(`${app.url}/account/two-factor-required?workspace=${slug}`, { headers: { cookie } });
    expect(required.status).toBe(200);
    const html = await required.text();
    expect(html).toContain(`Team ${n}`);
    expect(html).toContain('href="/account#two-factor"');
    expect(await revoke(key.id)).toEqual({ ok: false, error: ws.SECOND_FACTOR_REQUIRED_MESSAGE });
    const exported = await fetch(`${app.url}/w/${slug}/links/export`, { headers: { cookie } });
    expect(exported.status).toBe(403);
    // API keys are not people: they keep working
    const api = await fetch(`${app.url}/api/v1/links`, { headers: { authorization: `Bearer ${key.key}` } });
    expect(api.status).toBe(200);

    // the member enrols: the same session now reaches the workspace
    clock.setClock(() => ENROL_AT);
    try {
      await tf.startEnrolment(admin.id);
      const status = await tf.twoFactorStatus(admin.id);
      if (status.state !== "pending") throw new Error("no pending enrolment");
      await tf.confirmEnrolment(admin.id, { code: codeAt(status.secret, ENROL_AT) }, { password: "password1", signedInAt: null });
    } finally {
      clock.setClock(null);
    }
    const keysPage = await fetch(`${app.url}/w/${slug}/settings/api-keys`, { headers: { cookie }, redirect: "manual" });
    expect(keysPage.status).toBe(200);
    expect(await revoke(key.id)).toEqual({ ok: true });
  });

  test("the owner turns it on and off on the Settings page", async () => {
    const owner = await enrolledAccount();
    const slug = `tf-set-${++n}`;
    await ws.createWorkspace({ slug, name: `Settings ${n}`, owner: owner.email, plan: "business" });
    const cookie = sessionCookieOf((await codeStep((await passwordStep(owner.email)).pending, codeAt(owner.secret, appNow()))).cookies)!;
    const on = await submitForm(app.url, `/w/${slug}/settings`, {}, { headers: { cookie }, containing: "Require a second factor" });
    expect(on.status).toBe(200);
    expect((await dbm.db().workspace.findUniqueOrThrow({ where: { slug } })).requireTwoFactor).toBe(true);
    const page = await (await fetch(`${app.url}/w/${slug}/settings`, { headers: { cookie } })).text();
    expect(page).toContain("Stop requiring a second factor");
    await submitForm(app.url, `/w/${slug}/settings`, {}, { headers: { cookie }, containing: "Stop requiring a second factor" });
    expect((await dbm.db().workspace.findUniqueOrThrow({ where: { slug } })).requireTwoFactor).toBe(false);
  });

  test("needs the plan's feature and the owner's own second factor", async () => {
    const owner = await enrolledAccount();
    const free = await ws.createWorkspace({ slug: `tf-free-${++n}`, name: "Free", owner: owner.email, plan: "free" });
    const ctx = await ws.authorize({ userId: owner.id }, free.slug, "security.manage");
    await expect(ws.setSecondFactorRequired(ctx, { require: true })).rejects.toMatchObject({ code: "feature" });

    const plainEmail = `tf-plain-${n}@example.test`;
    const plain = await users.createUser({ email: plainEmail, password: "password1" });
    const team = await ws.createWorkspace({ slug: `tf-team-${n}`, name: "Team", owner: plainEmail, plan: "team" });
    const teamCtx = await ws.authorize({ userId: plain.id }, team.slug, "security.manage");
    await expect(ws.setSecondFactorRequired(teamCtx, { require: true })).rejects.toMatchObject({ code: "validation" });
  });
});

/** One sign-in through Auth.js's credentials endpoint, as a script would. */
async function httpSignIn(email: string, password: string): Promise<{ signedIn: boolean; code: string | null }> {
  const csrfRes = await fetch(`${app.url}/api/auth/csrf`);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const csrfCookie = (csrfRes.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; ");
  const res = await fetch(`${app.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${app.url}/` }),
  });
  const cookies = (res.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]);
  const location = res.headers.get("location") ?? "";
  return {
    signedIn: Boolean(sessionCookieOf(cookies)),
    code: location.includes("?") ? new URL(location, app.url).searchParams.get("code") : null,
  };
}
