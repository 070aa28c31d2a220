import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { credentialsSignIn, sessionCookieOf, submitForm } from "./security-auth-forms.ts";

// Password guessing and mass sign-up against the running server (lib/auth/throttle.ts): failed
// sign-ins per account and client address (10 per 15 minutes) and per account (50 per hour), on
// Auth.js's HTTP endpoint and the login form; sign-ups per address (30 per hour).
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let direct: RunningApp; // clients connect directly: their headers cannot choose their address
let proxied: RunningApp; // TRUST_PROXY=1: the address is the proxy's X-Forwarded-For entry
let users: typeof import("../../lib/auth/users.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  users = await import("../../lib/auth/users.ts");
  // Every test here fails from one address (loopback): the limit of failures per client across
  // accounts is raised out of the way; tests/integration/security-auth-guessing.test.ts tests it.
  const wide = { SIGNIN_FAILURES_PER_CLIENT: "1000" };
  [direct, proxied] = await Promise.all([startApp(database.url, wide), startApp(database.url, { ...wide, TRUST_PROXY: "1" })]);
});

afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop()]);
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

let n = 0;
async function account(password = "password1") {
  const email = `thr-${++n}@example.test`;
  await users.createUser({ email, password });
  return email;
}

type Attempt = { signedIn: boolean; code: string | null };

/** One sign-in through Auth.js's credentials endpoint, as a script would guess. */
async function attempt(app: RunningApp, email: string, password: string, headers: Record<string, string> = {}): Promise<Attempt> {
  const { signedIn, code } = await credentialsSignIn(app.url, email, password, headers);
  return { signedIn, code };
}

const wrong = { signedIn: false, code: "credentials" };
const locked = (minutes: number) => ({ signedIn: false, code: `too_many_attempts.${minutes}` });

describe("sign-in limit per account and address", () => {
  test("after 10 failures every attempt is refused, the right password too, whatever headers the client sends", async () => {
    const email = await account();
    for (let i = 0; i < 10; i++) expect(await attempt(direct, email, `guess-${i}`)).toEqual(wrong);
    expect(await attempt(direct, email, "guess-10")).toEqual(locked(15));
    expect(await attempt(direct, email, "password1")).toEqual(locked(15));
    // Without TRUST_PROXY a client cannot pick another address with headers.
    const forged = { "x-forwarded-for": "203.0.113.7", "x-linkhop-client-address": "203.0.113.8" };
    expect(await attempt(direct, email, "password1", forged)).toEqual(locked(15));
    // Another account from the same address is not affected.
    const other = await account();
    expect(await attempt(direct, other, "password1")).toMatchObject({ signedIn: true });
  });

  test("an unknown email is answered exactly like an existing account", async () => {
    const email = await account();
    const nobody = `nobody-${++n}@example.test`;
    const seen = { real: [] as Attempt[], unknown: [] as Attempt[] };
    for (let i = 0; i < 12; i++) {
      seen.real.push(await attempt(direct, email, `guess-${i}`));
      seen.unknown.push(await attempt(direct, nobody, `guess-${i}`));
    }
    expect(seen.unknown).toEqual(seen.real);
    expect(seen.real.at(-1)).toEqual(locked(15));
  });

  test("only failures count, and 25 parallel guesses get exactly 10 password checks", async () => {
    const email = await account();
    for (let i = 0; i < 9; i++) expect(await attempt(direct, email, `guess-${i}`)).toEqual(wrong);
    expect(await attempt(direct, email, "password1")).toMatchObject({ signedIn: true });
    expect(await attempt(direct, email, "guess-9")).toEqual(wrong);
    expect(await attempt(direct, email, "guess-10")).toEqual(locked(15));

    const racer = await account();
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => attempt(direct, racer, `parallel-${i}`)));
    expect(results.filter((r) => r.code === "credentials")).toHaveLength(10);
    expect(results.filter((r) => r.code?.startsWith("too_many_attempts."))).toHaveLength(15);
  });

  test("the login form refuses with 'try again in N minutes' (the invitation page: tests/e2e/security-auth-limits.spec.ts)", async () => {
    const email = await account();
    for (let i = 0; i < 10; i++) {
      const r = await submitForm(direct.url, "/login", { email, password: `form-${i}` });
      expect(r.html).toContain("Wrong email or password.");
    }
    const form = await submitForm(direct.url, "/login", { email, password: "password1" });
    expect(form.status).toBe(200);
    expect(form.html).toContain("Too many attempts. Try again in 15 minutes.");
    expect(sessionCookieOf(form.cookies)).toBeUndefined();

    // The legitimate path still works for someone else: the login form signs in and redirects.
    const other = await account();
    const ok = await submitForm(direct.url, "/login", { email: other, password: "password1" });
    expect(ok.status).toBe(303);
    expect(sessionCookieOf(ok.cookies)).toBeDefined();
  });
});

describe("behind a trusted proxy", () => {
  const from = (address: string) => ({ "x-forwarded-for": `10.9.9.9, ${address}` });

  test("the limit is per X-Forwarded-For address, and a wider one holds per account (50 failures per hour)", async () => {
    const email = await account();
    for (let i = 0; i < 10; i++) expect(await attempt(proxied, email, `a-${i}`, from("198.51.100.1"))).toEqual(wrong);
    expect(await attempt(proxied, email, "password1", from("198.51.100.1"))).toEqual(locked(15));
    // The owner, elsewhere, still gets in.
    expect(await attempt(proxied, email, "password1", from("198.51.100.2"))).toMatchObject({ signedIn: true });

    // Guessing from many addresses: 40 more failures reach the account's 50.
    for (let a = 3; a <= 6; a++) {
      for (let i = 0; i < 10; i++) expect(await attempt(proxied, email, `b-${a}-${i}`, from(`198.51.100.${a}`))).toEqual(wrong);
    }
    expect(await attempt(proxied, email, "password1", from("198.51.100.9"))).toEqual(locked(60));
  });

  test("an IPv6 /64 counts as one client", async () => {
    const email = await account();
    for (let i = 0; i < 10; i++)
      expect(await attempt(proxied, email, `v6-${i}`, from(`2001:db8:1:2::${(i + 1).toString(16)}`))).toEqual(wrong);
    expect(await attempt(proxied, email, "password1", from("2001:db8:1:2:ffff:ffff:ffff:fffe"))).toEqual(locked(15));
    expect(await attempt(proxied, email, "password1", from("2001:db8:1:3::1"))).toMatchObject({ signedIn: true });
  });

  test("sign-up: 30 attempts per address and hour (refused ones count), other addresses unaffected", async () => {
    const address = from("192.0.2.44");
    for (let i = 0; i < 29; i++) {
      const r = await submitForm(proxied.url, "/signup", { email: `not-an-email-${i}`, password: "password1" }, { headers: address });
      expect(r.html).toContain("Enter a valid email address.");
    }
    const ok = await submitForm(proxied.url, "/signup", { email: `su-${++n}@example.test`, password: "password1" }, { headers: address });
    expect(ok.status).toBe(303);
    const refused = await submitForm(
      proxied.url,
      "/signup",
      { email: `su-${++n}@example.test`, password: "password1" },
      { headers: address },
    );
    expect(refused.status).toBe(200);
    expect(refused.html).toContain("Too many attempts. Try again in 60 minutes.");
    const { db } = await import("../../lib/db/client.ts");
    expect(await db().user.count({ where: { email: `su-${n}@example.test` } })).toBe(0);

    const elsewhere = await submitForm(
      proxied.url,
      "/signup",
      { email: `su-${++n}@example.test`, password: "password1" },
      { headers: from("192.0.2.45") },
    );
    expect(elsewhere.status).toBe(303);
  });
});
