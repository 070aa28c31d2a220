import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";
import { signInCookie } from "../support/session.ts";
import { formsOf, submitForm, type FormAnswer } from "./security-auth-forms.ts";
import { captureLogs } from "../support/logs.ts";

// "Forgot password?" (lib/auth/password-reset.ts) against the real server and a real SMTP server
// on loopback: the mailed link works once, for an hour of the app's clock, sets the password,
// verifies the address and ends every session; the answer never tells whether an account exists;
// requests are limited per address and per client; the admin CLI prints a link that works once.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let smtp: SmtpServer;
let app: RunningApp; // TRUST_PROXY=1: each test picks its client address with X-Forwarded-For
let later: RunningApp; // the same database, with the app's clock 61 minutes ahead (LINKHOP_CLOCK_START)
let users: typeof import("../../lib/auth/users.ts");
let reset: typeof import("../../lib/auth/password-reset.ts");
let clock: typeof import("../../lib/clock.ts");
let db: typeof import("../../lib/db/client.ts").db;

const APP_URL = "http://app.linkhop.test";
const root = path.resolve(import.meta.dirname, "../..");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  smtp = await startSmtpServer();
  process.env.SMTP_URL = smtp.url;
  process.env.APP_URL = APP_URL;
  (await import("../../lib/config/index.ts")).resetConfig();
  users = await import("../../lib/auth/users.ts");
  reset = await import("../../lib/auth/password-reset.ts");
  clock = await import("../../lib/clock.ts");
  db = (await import("../../lib/db/client.ts")).db;
  const env = { SMTP_URL: smtp.url, APP_URL, TRUST_PROXY: "1" };
  [app, later] = await Promise.all([
    startApp(database.url, env),
    startApp(database.url, { ...env, LINKHOP_CLOCK_START: new Date(Date.now() + 61 * 60_000).toISOString() }),
  ]);
}, 120_000);

afterEach(() => clock.setClock(null));

afterAll(async () => {
  await Promise.all([app?.stop(), later?.stop()]);
  await smtp?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
const fresh = (label: string) => `${label}-${++n}@example.test`;
/** A client address of its own (TRUST_PROXY=1: the last X-Forwarded-For entry). */
function client() {
  const c = ++n;
  return { "x-forwarded-for": `10.0.0.1, 198.51.${(c >> 8) & 255}.${c & 255}` };
}

/** An account made by sign-up (address not verified yet), with its workspace. */
async function person(password = "password1") {
  const email = fresh("reset");
  const r = await users.signUp({ email, password });
  return { email, userId: r.user.id, slug: r.workspace.slug };
}

/** "Forgot password?" posted without JavaScript, as a browser or a script does. */
function askForLink(email: string, headers: Record<string, string> = client()) {
  return submitForm(app.url, "/forgot-password", { email }, { headers });
}

/** The reset link of the newest mail to `email` sent after `after` messages, as a path of the app. */
async function mailedPath(email: string, after = 0) {
  const mail = await smtp.waitFor(
    (m) => m.to.includes(email) && m.subject === "Reset your Linkhop password" && smtp.messages.indexOf(m) >= after,
  );
  const url = new RegExp(`${APP_URL}/reset-password/[A-Za-z0-9_-]+`).exec(mail.text)?.[0];
  expect(url, mail.text).toBeDefined();
  expect(mail.html).toContain(url);
  return new URL(url!).pathname;
}

const resetMailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email) && m.subject === "Reset your Linkhop password");

/**
 * The reset page's form, loaded once and posted as often as asked (with `token` replaced, or to
 * another app, when given), so a used or tampered link can be posted again as a kept page would be.
 */
async function resetForm(base: string, pathname: string) {
  const html = await (await fetch(`${base}${pathname}`)).text();
  const form = formsOf(html).find((f) => f.fields.some(([name]) => name.startsWith("$ACTION")));
  if (!form) throw new Error(`no form on ${pathname}: ${html.slice(0, 300)}`);
  expect(form.fields).toContainEqual(["token", pathname.split("/").pop()]);
  return async (password: string, opts: { token?: string; to?: string; headers?: Record<string, string> } = {}): Promise<FormAnswer> => {
    const body = new FormData();
    for (const [name, value] of form.fields) body.append(name, name === "token" && opts.token ? opts.token : value);
    body.append("password", password);
    const res = await fetch(`${opts.to ?? base}${pathname}`, { method: "POST", body, headers: opts.headers, redirect: "manual" });
    return { status: res.status, location: res.headers.get("location"), html: await res.text(), cookies: [] };
  };
}

/** What the workspace page answers for a cookie: 200 when it opens, else where it sends the visitor. */
async function openWorkspace(slug: string, cookie: string) {
  const res = await fetch(`${app.url}/w/${slug}`, { headers: { cookie }, redirect: "manual" });
  return { status: res.status, location: res.headers.get("location") };
}

const signsIn = (email: string, password: string) =>
  signInCookie(app.url, email, password).then(
    () => true,
    () => false,
  );

/** The page's heading: what it says happened. */
const headingOf = (html: string) => /<h1\b[^>]*>([^<]*)</.exec(html)?.[1] ?? null;

/** The text of the page's alert (a refusal), if any. */
const alertOf = (html: string) => /role="alert"[^>]*>([^<]*)</.exec(html)?.[1] ?? null;

/** A page's HTML without what differs on every render of the same page (React's ids, Next's per-request data). */
function samePage(html: string) {
  return html.replace(/_R_[A-Za-z0-9_]+_/g, "_R_").replace(/nonce="[^"]*"/g, "");
}

const SENT = "If a Linkhop account uses that address, we have mailed it a link to set a new password.";

describe("the mailed link", () => {
  test("arrives, sets the new password once, verifies the address and ends every other session", async () => {
    const p = await person();
    const laptop = await signInCookie(app.url, p.email, "password1");
    expect(await openWorkspace(p.slug, laptop)).toEqual({ status: 200, location: null });

    const asked = await askForLink(p.email);
    expect(asked.status).toBe(200);
    expect(asked.html).toContain(SENT);
    const pathname = await mailedPath(p.email);
    expect(await (await fetch(`${app.url}${pathname}`)).text()).toContain(p.email);
    // Opening the link changes nothing (mail scanners open links).
    expect(await signsIn(p.email, "password1")).toBe(true);

    const post = await resetForm(app.url, pathname);
    const done = await post("a brand new password");
    expect(headingOf(done.html)).toBe("Password set");
    expect(alertOf(done.html)).toBeNull();

    const user = await db().user.findUniqueOrThrow({ where: { id: p.userId } });
    expect(user.emailVerifiedAt).not.toBeNull();
    const replay = await openWorkspace(p.slug, laptop);
    expect(replay.status).toBe(307);
    expect(replay.location).toContain("/login");
    expect(await signsIn(p.email, "password1")).toBe(false);
    expect(await openWorkspace(p.slug, await signInCookie(app.url, p.email, "a brand new password"))).toEqual({
      status: 200,
      location: null,
    });

    // The same link (and the kept page's form) works once.
    expect(headingOf((await post("yet another password")).html)).toBe("This link was already used");
    expect(headingOf(await (await fetch(`${app.url}${pathname}`)).text())).toBe("This link was already used");
    expect(await signsIn(p.email, "yet another password")).toBe(false);
    expect(await signsIn(p.email, "a brand new password")).toBe(true);
  });

  test("a too short password is refused without spending the link", async () => {
    const p = await person();
    await askForLink(p.email);
    const post = await resetForm(app.url, await mailedPath(p.email));
    expect(alertOf((await post("short")).html)).toBe("Use at least 8 characters for the password.");
    expect(headingOf((await post("long enough now")).html)).toBe("Password set");
  });

  test("expires after an hour of the app's clock", async () => {
    const p = await person();
    await askForLink(p.email);
    const pathname = await mailedPath(p.email);
    // The app whose clock is 61 minutes ahead sees the same link as expired, and refuses it.
    expect(await (await fetch(`${later.url}${pathname}`)).text()).toContain("This link has expired");
    // The form, loaded from the app in time, posted to the app that is an hour later.
    const post = await resetForm(app.url, pathname);
    expect(headingOf((await post("too late password", { to: later.url })).html)).toBe("This link has expired");
    expect(await signsIn(p.email, "too late password")).toBe(false);

    // Links made 59 and 61 minutes before now (this process's clock, lib/clock.ts): the first still works.
    const made = async (minutesAgo: number) => {
      clock.setClock(() => Date.now() - minutesAgo * 60_000);
      const before = smtp.messages.length;
      await reset.requestPasswordReset("203.0.113.9", { email: p.email });
      clock.setClock(null);
      return mailedPath(p.email, before);
    };
    const stale = await made(61);
    expect(await (await fetch(`${app.url}${stale}`)).text()).toContain("This link has expired");
    const recent = await made(59);
    expect(headingOf((await (await resetForm(app.url, recent))("in the nick of time")).html)).toBe("Password set");
    // The first link, still in time on this app, was replaced by the newer ones.
    expect(headingOf((await post("never set")).html)).toBe("This link is not valid");
    expect(await signsIn(p.email, "in the nick of time")).toBe(true);
  });

  test("a tampered, unknown or replaced link, or one for an address the account no longer has, is refused and changes nothing", async () => {
    const p = await person();
    await askForLink(p.email);
    const first = await mailedPath(p.email);
    const before = smtp.messages.length;
    await askForLink(p.email);
    const second = await mailedPath(p.email, before);
    expect(second).not.toBe(first);

    const token = second.split("/").pop()!;
    const tampered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    const invalid = "This link is not valid. Check that you opened the whole link from the email, or ask for a new one.";
    const post = await resetForm(app.url, second);
    for (const bad of [tampered, "A".repeat(43), "nonsense", first.split("/").pop()!]) {
      expect(await (await fetch(`${app.url}/reset-password/${bad}`)).text()).toContain("This link is not valid");
      expect(alertOf((await post("stolen password", { token: bad })).html)).toBe(invalid);
    }
    expect(await signsIn(p.email, "stolen password")).toBe(false);
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).emailVerifiedAt).toBeNull();

    // The account's address changes after the mail went out: the link was for the old address.
    await db().user.update({ where: { id: p.userId }, data: { email: fresh("moved") } });
    expect(headingOf((await post("stolen password")).html)).toBe("This link is not valid");
    expect(await signsIn(p.email, "stolen password")).toBe(false);
    expect((await db().user.findUniqueOrThrow({ where: { id: p.userId } })).emailVerifiedAt).toBeNull();
  });

  test("an account without a password (GitHub/Google only) sets one; identities linked before the address was verified are removed", async () => {
    const verified = await person();
    await db().user.update({ where: { id: verified.userId }, data: { passwordHash: null, emailVerifiedAt: new Date() } });
    await db().account.create({ data: { userId: verified.userId, provider: "google", providerAccountId: `g-${++n}` } });
    const squatted = await person();
    await db().user.update({ where: { id: squatted.userId }, data: { passwordHash: null } });
    await db().account.create({ data: { userId: squatted.userId, provider: "github", providerAccountId: `gh-${++n}` } });

    for (const p of [verified, squatted]) {
      const before = smtp.messages.length;
      await askForLink(p.email);
      const mail = await smtp.waitFor((m) => m.to.includes(p.email) && smtp.messages.indexOf(m) >= before);
      expect(mail.text).toContain("set a password (your account signs in with GitHub or Google so far)");
      expect(headingOf((await (await resetForm(app.url, await mailedPath(p.email, before)))("my first password")).html)).toBe(
        "Password set",
      );
      expect(await signsIn(p.email, "my first password")).toBe(true);
    }
    expect(await db().account.count({ where: { userId: verified.userId } })).toBe(1);
    expect(await db().account.count({ where: { userId: squatted.userId } })).toBe(0);
    expect((await db().user.findUniqueOrThrow({ where: { id: squatted.userId } })).emailVerifiedAt).not.toBeNull();
  });

  test("whoever reached the sign-in limit guessing can sign in with the new password at once", async () => {
    const p = await person();
    for (let i = 0; i < 10; i++) expect(await signsIn(p.email, `guess-${i}`)).toBe(false);
    // The sign-ins and the reset come from this process's own address (no X-Forwarded-For).
    await askForLink(p.email, {});
    expect(headingOf((await (await resetForm(app.url, await mailedPath(p.email)))("remembered now")).html)).toBe("Password set");
    expect(await signsIn(p.email, "remembered now")).toBe(true);
  });
});

describe("without SMTP_URL", () => {
  test("the mail, with its link, goes to the server log like every other mail", async () => {
    const p = await person();
    const { resetConfig } = await import("../../lib/config/index.ts");
    delete process.env.SMTP_URL;
    resetConfig();
    // this process's log lines, as LOG_FORMAT=pretty prints them
    const log = captureLogs();
    let logged = "";
    try {
      await reset.requestPasswordReset("203.0.113.77", { email: p.email });
      const heading = `[mail] (no SMTP_URL) to ${p.email}: Reset your Linkhop password`;
      await vi.waitFor(() => expect(log.text()).toContain(heading), { timeout: 10_000 });
      logged = log.text().slice(log.text().indexOf(heading));
    } finally {
      log.restore();
      process.env.SMTP_URL = smtp.url;
      resetConfig();
    }
    const pathname = new URL(new RegExp(`${APP_URL}/reset-password/[A-Za-z0-9_-]+`).exec(logged)![0]).pathname;
    expect(headingOf((await (await resetForm(app.url, pathname))("from the log")).html)).toBe("Password set");
    expect(resetMailsTo(p.email)).toHaveLength(0);
  });
});

describe("no account enumeration", () => {
  test("an unknown address gets byte for byte the answer of a known one, and no mail", async () => {
    const known = await person();
    const unknown = fresh("nobody");
    const answers = { unknown: await askForLink(unknown), known: await askForLink(known.email) };
    expect(answers.known.html).toContain(SENT);
    expect(answers.unknown.status).toBe(answers.known.status);
    expect(samePage(answers.unknown.html)).toBe(samePage(answers.known.html));
    expect(answers.unknown.cookies).toEqual(answers.known.cookies);

    // The known address's mail was asked for after the unknown one's would have been.
    await mailedPath(known.email);
    expect(smtp.messages.filter((m) => m.to.includes(unknown))).toHaveLength(0);
    expect(await db().passwordReset.count({ where: { email: unknown } })).toBe(0);
  });
});

describe("limits", () => {
  test("per address: 5 links an hour, from any client; then the same refusal whether or not an account has it", async () => {
    const known = await person();
    const unknown = fresh("nobody");
    for (let i = 0; i < 5; i++) {
      expect((await askForLink(known.email)).html).toContain(SENT);
      expect((await askForLink(unknown)).html).toContain(SENT);
    }
    const refusals = [await askForLink(known.email), await askForLink(unknown), await askForLink(known.email, client())];
    for (const r of refusals) {
      expect(r.html).not.toContain(SENT);
      expect(alertOf(r.html)).toBe("Too many attempts. Try again in 60 minutes.");
    }
    await smtp.waitFor(() => resetMailsTo(known.email).length === 5);
    // Another address is not affected.
    expect((await askForLink(fresh("other"))).html).toContain(SENT);
    expect(resetMailsTo(known.email)).toHaveLength(5);
  });

  test("per client: 20 requests an hour, whatever addresses; then the same refusal for known and unknown addresses", async () => {
    const from = client();
    const known = await person();
    for (let i = 0; i < 19; i++) expect((await askForLink(fresh("spray"), from)).html).toContain(SENT);
    expect((await askForLink(known.email, from)).html).toContain(SENT);
    const refused = { known: await askForLink(known.email, from), unknown: await askForLink(fresh("spray"), from) };
    expect(alertOf(refused.known.html)).toBe("Too many attempts. Try again in 60 minutes.");
    expect(alertOf(refused.unknown.html)).toBe(alertOf(refused.known.html));
    // Another client still gets a link for the same address.
    const before = smtp.messages.length;
    expect((await askForLink(known.email)).html).toContain(SENT);
    await mailedPath(known.email, before);
  });
});

describe("admin CLI user:reset-link", () => {
  type CliRun = { code: number | null; json: any; stdout: string };
  function admin(...args: string[]): Promise<CliRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...nodeFlags, adminCli, ...args], {
        cwd: root,
        env: { ...process.env, DATABASE_URL: database.url, APP_URL, SMTP_URL: smtp.url },
      });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("error", reject);
      child.on("close", (code) => {
        expect(out.trim().split("\n"), out).toHaveLength(1);
        resolve({ code, json: JSON.parse(out), stdout: out });
      });
    });
  }

  test("prints a link that works once (and mails nothing); unknown addresses and missing flags are errors", async () => {
    const p = await person();
    // mails to this person only: another test's mail may still arrive on the shared server
    const mailsTo = () => smtp.messages.filter((m) => m.to.includes(p.email)).length;
    const mailsBefore = mailsTo();
    const r = await admin("user:reset-link", "--email", p.email.toUpperCase());
    expect(r.code).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(["email", "expiresAt", "url"]);
    expect(r.json.email).toBe(p.email);
    expect(r.json.url).toMatch(new RegExp(`^${APP_URL}/reset-password/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(r.json.expiresAt) - Date.now()).toBeGreaterThan(58 * 60_000);
    expect(Date.parse(r.json.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60_000);

    const pathname = new URL(r.json.url).pathname;
    const post = await resetForm(app.url, pathname);
    expect(headingOf((await post("set by the operator link")).html)).toBe("Password set");
    expect(headingOf((await post("second use")).html)).toBe("This link was already used");
    expect(await signsIn(p.email, "set by the operator link")).toBe(true);
    expect(mailsTo()).toBe(mailsBefore);

    expect(await admin("user:reset-link", "--email", "nobody-cli@example.test")).toMatchObject({
      code: 1,
      json: { error: "not_found", message: "No account has the email address nobody-cli@example.test." },
    });
    expect(await admin("user:reset-link")).toMatchObject({ code: 1, json: { error: "validation", message: "Missing --email." } });
  }, 120_000);
});
