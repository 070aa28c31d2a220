import { enrolSecondFactor } from "../support/second-factor.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { startOidcProvider, type OidcAccount, type OidcProvider } from "../support/oidc-provider.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";
import { formsOf, submitForm } from "./security-auth-forms.ts";
import { freePort } from "../support/ports.ts";
import { Browser } from "../support/cookie-browser.ts";

// OpenID Connect sign-in (lib/auth/oidc.ts) against a real OpenID provider on loopback and the
// running app, over HTTP as a browser goes: the button on the login page -> the provider's
// authorization endpoint -> login and consent there -> the app's callback -> a session. An
// existing account is linked only when the provider vouches for the address (email_verified) and
// the account verified it by mail (lib/auth/oauth.ts).
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let smtp: SmtpServer;
let oidc: OidcProvider;
let app: RunningApp;
let db: typeof import("../../lib/db/client.ts").db;
let appUrl: string;

const BUTTON = "Continue with Acme SSO";

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  process.env.AUTH_SECRET = "test-secret-test-secret-test-secret"; // the app's (startApp): second-factor secrets are encrypted with it
  db = (await import("../../lib/db/client.ts")).db;
  smtp = await startSmtpServer();
  // APP_URL is where the app answers, so the callback registered at the provider is
  // APP_URL/api/auth/callback/oidc, as an operator registers it. (localhost: Next.js writes a
  // loopback address in a request's URL as localhost.)
  const port = await freePort();
  appUrl = `http://localhost:${port}`;
  oidc = await startOidcProvider({ redirectUri: `${appUrl}/api/auth/callback/oidc` });
  app = await startApp(database.url, {
    PORT: String(port),
    APP_URL: appUrl,
    SMTP_URL: smtp.url,
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: oidc.clientId,
    OIDC_CLIENT_SECRET: oidc.clientSecret,
    OIDC_NAME: "Acme SSO",
  });
  expect(app.port).toBe(port);
});

afterAll(async () => {
  await app?.stop();
  await oidc?.stop();
  await smtp?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
const fresh = (label: string) => `${label}-${++n}@example.test`;
const sub = () => `sub-${++n}`;

/**
 * Signs in with the provider's button on the login page as `account`, in a fresh browser: posts
 * the button's form and follows the redirects through the provider and the app's callback.
 */
async function signInWithOidc(account: OidcAccount) {
  oidc.signInNextAs(account);
  const browser = new Browser();
  const login = await browser.fetch(`${appUrl}/login`);
  expect(login.status).toBe(200);
  const form = formsOf(await login.text()).find((f) => f.html.includes(BUTTON));
  expect(form, "the provider's button on the login page").toBeDefined();
  const body = new FormData();
  for (const [name, value] of form!.fields) body.append(name, value);
  const hops = await browser.follow(`${appUrl}/login`, await browser.fetch(`${appUrl}/login`, { method: "POST", body }));
  // the way went through the provider and back to the app's callback
  expect(hops.some((h) => h.url.startsWith(`${oidc.issuer}/auth?`))).toBe(true);
  const callback = hops.find((h) => h.url.startsWith(`${appUrl}/api/auth/callback/oidc?`));
  expect(callback, hops.map((h) => `${h.res.status} ${h.url}`).join("\n")).toBeDefined();
  const session = browser.cookie(appUrl, "authjs.session-token");
  const sessionUser = session
    ? ((await (await fetch(`${appUrl}/api/auth/session`, { headers: { cookie: `authjs.session-token=${session}` } })).json()) as {
        user?: { id?: string };
      })
    : null;
  return {
    /** where the app's callback sent the browser */
    location: callback!.res.headers.get("location")!,
    /** the last page */
    final: hops.at(-1)!,
    userId: sessionUser?.user?.id ? Number(sessionUser.user.id) : null,
    /** the browser, with its cookies */
    browser,
  };
}

/** Signs up with a password over HTTP (an account whose address nobody has verified yet). */
async function signUpOverHttp(email: string) {
  const r = await submitForm(appUrl, "/signup", { email, password: "password1" });
  expect(r.status).toBe(303);
}

/** Follows the verification link of the last mail to `email`, as its owner does. */
async function verifyByMail(email: string) {
  const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject === "Confirm your email address for Linkhop");
  const url = new URL(/https?:\/\/\S+\/account\/verify\/\S+/.exec(mail.text)![0]);
  const page = await fetch(`${appUrl}${url.pathname}`);
  expect(await page.text()).toContain("Email address confirmed");
}

const userByEmail = (email: string) => db().user.findUniqueOrThrow({ where: { email }, include: { accounts: true } });

describe("OpenID Connect sign-in", () => {
  test("an account with a second factor is asked for its code after the provider; the provider alone makes no session", async () => {
    const email = fresh("with-code");
    const account = { sub: sub(), email, email_verified: true };
    const first = await signInWithOidc(account);
    const userId = first.userId!;
    // no password: a sign-in just before the enrolment
    const { totp } = await enrolSecondFactor(userId, (at) => ({ password: "", signedInAt: at }));

    const second = await signInWithOidc(account);
    expect(second.userId).toBeNull();
    expect(new URL(second.location, appUrl).pathname).toBe("/login/two-factor");
    expect(second.browser.cookie(appUrl, "authjs.session-token")).toBeUndefined();
    expect(second.browser.cookie(appUrl, "linkhop.second-factor")).toBeTruthy();
    const step = await second.browser.fetch(`${appUrl}/login/two-factor`);
    const form = formsOf(await step.text()).find((f) => f.fields.some(([name]) => name.startsWith("$ACTION")));
    expect(form, "the code form").toBeDefined();
    const body = new FormData();
    for (const [name, value] of form!.fields) body.append(name, value);
    body.append("code", totp.generate({ timestamp: Date.now() }));
    const answer = await second.browser.fetch(`${appUrl}/login/two-factor`, { method: "POST", body });
    expect(answer.status).toBe(303);
    const session = second.browser.cookie(appUrl, "authjs.session-token");
    expect(session).toBeTruthy();
    const me = (await (await fetch(`${appUrl}/api/auth/session`, { headers: { cookie: `authjs.session-token=${session}` } })).json()) as {
      user?: { id?: string };
    };
    expect(Number(me.user?.id)).toBe(userId);
  });

  test("a new address makes a verified account when the provider vouches for it; signing in again finds the same account", async () => {
    const email = fresh("new");
    const account = { sub: sub(), email, email_verified: true, name: "Ada Example" };
    const first = await signInWithOidc(account);
    expect(first.location).toBe(`${appUrl}/`);
    const user = await userByEmail(email);
    expect(first.userId).toBe(user.id);
    expect(user.emailVerifiedAt).not.toBeNull();
    expect(user.passwordHash).toBeNull();
    expect(user.name).toBe("Ada Example");
    // the identity is the issuer's subject: another issuer's same `sub` is someone else
    expect(user.accounts.map((a) => [a.provider, a.providerAccountId])).toEqual([["oidc", `${oidc.issuer}#${account.sub}`]]);
    // the account is in its own workspace, signed in
    expect(first.final.res.status).toBe(200);
    expect(first.final.url).toMatch(new RegExp(`^${appUrl}/w/[^/]+$`));

    const second = await signInWithOidc(account);
    expect(second.userId).toBe(user.id);
    expect(await db().user.count({ where: { email } })).toBe(1);
    expect(await db().account.count({ where: { userId: user.id } })).toBe(1);
  });

  test("a new address the provider does not vouch for makes an unverified account that signs nobody in; its mailbox gets the verification mail", async () => {
    for (const claims of [{ email_verified: false }, {}]) {
      const email = fresh("unvouched");
      const account = { sub: sub(), email, ...claims };
      const result = await signInWithOidc(account);
      expect(result.userId).toBeNull();
      expect(result.location).toBe(`${appUrl}/login?error=oauth_confirm_mail`);
      expect(await result.final.res.text()).toContain("so we sent a link to it");
      const user = await userByEmail(email);
      expect(user.emailVerifiedAt).toBeNull();
      expect(user.accounts.map((a) => a.linkedUnverified)).toEqual([true]);
      // again: still no session before the mailbox confirms
      expect((await signInWithOidc(account)).userId).toBeNull();
      await verifyByMail(email);
      const verified = await userByEmail(email);
      expect(verified.emailVerifiedAt).not.toBeNull();
      // confirming by mail drops the identity that was linked before: it proved nothing
      expect(verified.accounts).toHaveLength(0);
    }
  });

  test("pre-account takeover: an outsider's unvouched identity does not survive the owner's verification and password reset", async () => {
    const victim = fresh("victim");
    // The attacker signs in at the provider with the victim's address, which it does not vouch for.
    const attacker = { sub: sub(), email: victim, email_verified: false };
    expect((await signInWithOidc(attacker)).userId).toBeNull();
    // The victim opens the verification mail, then sets a password through "Forgot password?".
    await verifyByMail(victim);
    const ask = await submitForm(appUrl, "/forgot-password", { email: victim });
    expect(ask.status).toBeLessThan(400);
    const mail = await smtp.waitFor((m) => m.to.includes(victim) && m.subject === "Reset your Linkhop password");
    const resetPath = new URL(/https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(mail.text)![0]).pathname;
    const reset = await submitForm(appUrl, resetPath, { password: "victim-password-1" });
    expect(reset.html).toContain("Password set");
    const owner = await userByEmail(victim);
    expect(owner.accounts).toHaveLength(0);
    // The attacker's sign-in no longer lands in the account: it is refused, and no session is made.
    const again = await signInWithOidc(attacker);
    expect(again.userId).toBeNull();
    expect(again.browser.cookie(appUrl, "authjs.session-token")).toBeUndefined();
    expect(again.location).toBe(`${appUrl}/login?error=oauth_unverified_email`);
    expect((await userByEmail(victim)).accounts).toHaveLength(0);
  });

  test("is not linked to an existing account whose address was not verified by mail, and the login page says why", async () => {
    const email = fresh("squatted");
    await signUpOverHttp(email); // someone registered the address with a password
    const result = await signInWithOidc({ sub: sub(), email, email_verified: true });
    expect(result.userId).toBeNull();
    expect(new URL(result.location).pathname + new URL(result.location).search).toBe("/login?error=oauth_account_unverified");
    expect(result.final.res.status).toBe(200);
    expect(await result.final.res.text()).toContain("A Linkhop account with this email address exists, but its address is not verified.");
    expect((await userByEmail(email)).accounts).toHaveLength(0);
  });

  test("without an address from the provider nothing is created, and the login page says why", async () => {
    const account = { sub: sub() };
    const result = await signInWithOidc(account);
    expect(result.userId).toBeNull();
    expect(result.location).toBe(`${appUrl}/login?error=oauth_no_email`);
    expect(await result.final.res.text()).toContain("The provider did not share an email address.");
    expect(await db().account.count({ where: { providerAccountId: `${oidc.issuer}#${account.sub}` } })).toBe(0);
  });

  test("is linked to an account whose address was verified by mail, only when the provider vouches for the address", async () => {
    const email = fresh("owner");
    await signUpOverHttp(email);
    await verifyByMail(email);
    const owner = await userByEmail(email);

    const unvouched = await signInWithOidc({ sub: sub(), email, email_verified: false });
    expect(unvouched.userId).toBeNull();
    expect(unvouched.location).toBe(`${appUrl}/login?error=oauth_unverified_email`);
    expect(await unvouched.final.res.text()).toContain("The provider does not confirm that this email address is yours.");
    expect((await userByEmail(email)).accounts).toHaveLength(0);

    const account = { sub: sub(), email, email_verified: true };
    const linked = await signInWithOidc(account);
    expect(linked.userId).toBe(owner.id);
    expect((await userByEmail(email)).accounts.map((a) => [a.provider, a.providerAccountId])).toEqual([
      ["oidc", `${oidc.issuer}#${account.sub}`],
    ]);
    expect(await db().user.count({ where: { email } })).toBe(1);
  });
});

test("the button is on the login and sign-up pages, under its name, only when OpenID Connect is configured", async () => {
  const plain = await startApp(database.url, { SMTP_URL: smtp.url });
  try {
    for (const path of ["/login", "/signup"]) {
      const configured = await (await fetch(`${appUrl}${path}`)).text();
      expect(configured, path).toContain(BUTTON);
      expect(configured, path).toContain('name="provider" value="oidc"');
      const html = await (await fetch(`${plain.url}${path}`)).text();
      expect(html, path).toContain('name="password"');
      expect(html, path).not.toContain("Continue with");
      expect(html, path).not.toContain('value="oidc"');
    }
  } finally {
    await plain.stop();
  }
});
