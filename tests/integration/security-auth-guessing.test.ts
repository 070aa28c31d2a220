import { enrolSecondFactor } from "../support/second-factor.ts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { passwordHashes } from "../support/password-hashes.ts";
import { credentialsSignIn, sessionCookieOf, submitForm } from "./security-auth-forms.ts";

// Guessing passwords against the running server, as the security audit did (lib/auth/throttle.ts,
// lib/auth/known-client.ts): failed sign-ins are limited per client across every account, before
// any password is hashed (linkhop_password_hashes_total does not move); an account that a stranger
// locked with wrong passwords from five addresses still opens to its owner's browser that signed
// in before, and to the password together with the second factor.
const METRICS_TOKEN = "metrics-token-guessing-0123456789";
const AUTH_SECRET = "test-secret-test-secret-test-secret"; // startApp's: the second factor's secret is encrypted with it
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp; // TRUST_PROXY=1: each test picks its client's address with X-Forwarded-For
let users: typeof import("../../lib/auth/users.ts");

beforeAll(async () => {
  process.env.AUTH_SECRET = AUTH_SECRET;
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  users = await import("../../lib/auth/users.ts");
  app = await startApp(database.url, { TRUST_PROXY: "1", METRICS_TOKEN });
});

afterAll(async () => {
  await app?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
async function account() {
  const email = `guess-${++n}@example.test`;
  await users.createUser({ email, password: "password1" });
  return email;
}
/** A client address of its own for each use (TEST-NET-3, then 2001:db8::/32 for more). */
const client = () => ({ "x-forwarded-for": `203.0.113.${++n % 250}` });

/** One sign-in through Auth.js's credentials endpoint; `cookie` as a browser sends it. */
const attempt = (email: string, password: string, headers: Record<string, string>, cookie = "") =>
  credentialsSignIn(app.url, email, password, headers, cookie);

const interactiveHashes = async () => (await passwordHashes(app.url, METRICS_TOKEN)).interactive;

/** Locks `email`'s account-wide limit as the audit did: 10 wrong passwords from each of 5 addresses. */
async function lockAccount(email: string, secondFactor = false) {
  for (let a = 0; a < 5; a++) {
    const from = client();
    for (let i = 0; i < 10; i++)
      expect(await attempt(email, `wrong-${a}-${i}`, from)).toMatchObject({ signedIn: false, code: "credentials" });
  }
  // now locked for everyone else (with a second factor, every password goes on to the code step)
  const lockedAnswer = secondFactor ? "second_factor" : "too_many_attempts.60";
  expect(await attempt(email, "password1", client())).toMatchObject({ signedIn: false, code: lockedAnswer });
  expect(await attempt(email, "wrong-again", client())).toMatchObject({ signedIn: false, code: lockedAnswer });
}

describe("failed sign-ins per client, across accounts", () => {
  test("made-up addresses from one client stop after 50 failures, before any password is hashed; other clients are not affected", async () => {
    const from = client();
    for (let i = 0; i < 50; i++) {
      expect(await attempt(`made-up-${n}-${i}@example.test`, "guess", from), `attempt ${i + 1}`).toMatchObject({
        signedIn: false,
        code: "credentials",
      });
    }
    const hashesBefore = await interactiveHashes();
    for (let i = 0; i < 5; i++) {
      expect(await attempt(`made-up-more-${n}-${i}@example.test`, "guess", from)).toMatchObject({
        signedIn: false,
        code: "too_many_attempts.15",
      });
    }
    // a real account with its right password is refused from that client too: the limit is the client's
    const email = await account();
    expect(await attempt(email, "password1", from)).toMatchObject({ signedIn: false, code: "too_many_attempts.15" });
    // refused before hashing: not one hash for those 6 attempts
    expect(await interactiveHashes()).toBe(hashesBefore);
    // another client signs in
    expect(await attempt(email, "password1", client())).toMatchObject({ signedIn: true });
  });

  test("right passwords do not count: a client signing in to many accounts is never stopped", async () => {
    const from = client();
    for (let i = 0; i < 55; i++) {
      const email = await account();
      expect(await attempt(email, "password1", from), `sign-in ${i + 1}`).toMatchObject({ signedIn: true });
    }
  });
});

describe("an account a stranger locked", () => {
  test("stays locked to new clients, but opens to the owner's browser that signed in before", async () => {
    const email = await account();
    const home = client();
    const first = await attempt(email, "password1", home);
    expect(first.signedIn).toBe(true);
    const mark = first.cookies.find((c) => c.startsWith("linkhop.known-client="));
    expect(mark, "the known-client cookie of a full sign-in").toBeDefined();

    await lockAccount(email);
    // the owner's browser, even from another address now
    expect(await attempt(email, "password1", client(), mark)).toMatchObject({ signedIn: true });
    // its mark does not let it guess: a wrong password is still wrong, and counted per client
    expect(await attempt(email, "not-it", home, mark)).toMatchObject({ signedIn: false, code: "credentials" });
    // another account's mark does not open this one
    const other = await account();
    const otherMark = (await attempt(other, "password1", client())).cookies.find((c) => c.startsWith("linkhop.known-client="));
    expect(await attempt(email, "password1", client(), otherMark)).toMatchObject({ signedIn: false, code: "too_many_attempts.60" });
    // nor does a made-up mark
    const forged = `linkhop.known-client=${"A".repeat(22)}`;
    expect(await attempt(email, "password1", client(), forged)).toMatchObject({ signedIn: false, code: "too_many_attempts.60" });
  });

  test("opens to the right password together with a valid second factor", async () => {
    const email = `guess-${++n}@example.test`;
    const user = await users.createUser({ email, password: "password1" });
    const { totp } = await enrolSecondFactor(user.id, () => ({ password: "password1", signedInAt: null }));

    await lockAccount(email, true);
    const from = client();
    // the password step: no session, on to the code
    const step = await submitForm(app.url, "/login", { email, password: "password1" }, { headers: from });
    expect(step.status).toBe(303);
    expect(step.location).toMatch(/^\/login\/two-factor/);
    expect(sessionCookieOf(step.cookies)).toBeUndefined();
    const pending = step.cookies.find((c) => c.startsWith("linkhop.second-factor="))!;
    expect(pending).toBeDefined();
    // a wrong password is answered the same way (the lock does not tell them apart), but no code completes it
    const wrong = await submitForm(app.url, "/login", { email, password: "not-it" }, { headers: from });
    expect(wrong.status).toBe(303);
    expect(wrong.location).toBe(step.location);
    const decoy = wrong.cookies.find((c) => c.startsWith("linkhop.second-factor="))!;
    expect(decoy.length).toBe(pending.length);
    const refused = await submitForm(
      app.url,
      wrong.location!,
      { code: totp.generate({ timestamp: Date.now() }) },
      { headers: { ...from, cookie: decoy } },
    );
    expect(refused.status).toBe(200);
    expect(sessionCookieOf(refused.cookies)).toBeUndefined();
    // the code step
    const done = await submitForm(
      app.url,
      step.location!,
      { code: totp.generate({ timestamp: Date.now() }) },
      { headers: { ...from, cookie: pending } },
    );
    expect(done.status).toBe(303);
    expect(sessionCookieOf(done.cookies)).toBeDefined();
  });
});
