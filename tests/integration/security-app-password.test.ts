import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { GUESS_LIMIT, LINK_GUESS_LIMIT } from "../../lib/redirects/password.ts";
import { call, makeWorkspace, startApiTest, type Answer, type ApiTestEnv } from "../support/api.ts";

// Password-protected links against guessing, over real HTTP (behind a trusted proxy, so the test
// can be many addresses): IPv6 addresses count by /64, the link has a ceiling across all visitors
// that lifts after its window, and a visitor's form (cookie + token) keeps its own allowance
// whatever is posted without the token from the same address. The browser side of the last one
// (a cross-site page posting guesses) is tests/e2e/security-app.spec.ts.

const SHORT = "localhost:3000";
let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest({ env: { TRUST_PROXY: "1" } });
});
afterAll(async () => {
  await env?.stop();
});

async function protectedLink() {
  const { key } = await makeWorkspace("team");
  const a = await call(env.app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/secret", password: "open sesame" } });
  expect(a.status, a.text).toBe(201);
  return a.body as { id: number; code: string };
}

/** A guess from `address` (X-Forwarded-For, trusted); with `form`, as the form posts it (cookie + token). */
function guess(code: string, address: string, password: string, form?: { cookie: string; token: string }): Promise<Answer> {
  const body = new URLSearchParams({ password, ...(form ? { token: form.token } : {}) }).toString();
  return call(env.app, "POST", `/${code}`, {
    body,
    contentType: "application/x-www-form-urlencoded",
    headers: { host: SHORT, "x-forwarded-for": address, ...(form ? { cookie: form.cookie } : {}) },
  });
}

/** What a browser gets with the form: its cookie and the hidden token. */
async function openForm(code: string, address: string) {
  const a = await call(env.app, "GET", `/${code}`, { headers: { host: SHORT, "x-forwarded-for": address } });
  expect(a.status).toBe(200);
  const setCookie = String(a.headers["set-cookie"] ?? "");
  expect(setCookie).toMatch(/^lh_pw=[A-Za-z0-9_-]{22}; Path=\/; HttpOnly; SameSite=Strict/);
  const token = /name="token" value="([^"]+)"/.exec(a.text)![1];
  return { cookie: setCookie.split(";")[0], token };
}

describe("password guessing", () => {
  it("IPv6 addresses of one /64 share one allowance; another /64 has its own", async () => {
    const link = await protectedLink();
    const tries = await Promise.all(
      Array.from({ length: GUESS_LIMIT }, (_, i) => guess(link.code, `2001:db8:aa:1::${(i + 1).toString(16)}`, "wrong")),
    );
    expect(tries.map((a) => a.status)).toEqual(Array(GUESS_LIMIT).fill(401));
    // An 11th address in the same /64 (what one subscriber gets) is over the limit, even with the right password.
    expect((await guess(link.code, "2001:db8:aa:1:ffff:ffff:ffff:ffff", "open sesame")).status).toBe(429);
    const other = await guess(link.code, "2001:db8:aa:2::1", "open sesame");
    expect(other.status).toBe(302);
    expect(other.headers.location).toBe("https://example.com/secret");
  });

  it("a guess posted without the form's token does not use up the allowance of the visitor's form", async () => {
    const link = await protectedLink();
    const address = "198.51.100.7";
    const form = await openForm(link.code, address);
    // What another site can make this visitor's browser send: no cookie, so no valid token; or a token the attacker fetched for itself.
    const attackerForm = await openForm(link.code, "203.0.113.66");
    for (let i = 0; i < GUESS_LIMIT; i++) {
      const forged =
        i % 2
          ? await guess(link.code, address, `wrong${i}`)
          : await guess(link.code, address, `wrong${i}`, { cookie: "", token: attackerForm.token });
      expect(forged.status).toBe(401);
    }
    expect((await guess(link.code, address, "open sesame")).status).toBe(429);
    // The visitor's own form still has all its guesses.
    const wrong = await guess(link.code, address, "typo", form);
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("Wrong password");
    expect(wrong.headers["set-cookie"]).toBeUndefined(); // the cookie it has is kept
    const right = await guess(link.code, address, "open sesame", form);
    expect(right.status).toBe(302);
    expect(right.headers.location).toBe("https://example.com/secret");
  });

  it("the link's ceiling across all visitors stops distributed guessing, lifts after its window, and counts no address past its own limit", async () => {
    const link = await protectedLink();
    // One address far over its own limit adds only GUESS_LIMIT to the link's count.
    const first = await Promise.all(Array.from({ length: GUESS_LIMIT + 5 }, () => guess(link.code, "192.0.2.1", "wrong")));
    expect(first.filter((a) => a.status === 401)).toHaveLength(GUESS_LIMIT);
    // Then many addresses, GUESS_LIMIT - 1 each (none reaches its own limit), in parallel.
    const addresses: string[] = [];
    for (let sent = GUESS_LIMIT; sent < LINK_GUESS_LIMIT; sent++)
      addresses.push(`192.0.2.${2 + Math.floor((sent - GUESS_LIMIT) / (GUESS_LIMIT - 1))}`);
    const spread = await Promise.all(addresses.map((address) => guess(link.code, address, "wrong")));
    expect(spread.map((a) => a.status)).toEqual(addresses.map(() => 401));
    // The link is closed to everyone for now, right password or not, and says when to come back.
    const busy = await guess(link.code, "192.0.2.200", "open sesame");
    expect(busy.status).toBe(429);
    expect(busy.headers["retry-after"]).toBe("300");
    expect(busy.text).toContain("Too many attempts");
    // The refused guess did not count against that visitor: they have their whole allowance after the window.
    await db()
      .$executeRaw`update "PasswordGuess" set "startedAt" = now() - interval '6 minutes' where "linkId" = ${link.id} and visitor = '*'`;
    for (let i = 0; i < GUESS_LIMIT - 1; i++) expect((await guess(link.code, "192.0.2.200", "wrong")).status).toBe(401);
    expect((await guess(link.code, "192.0.2.200", "open sesame")).status).toBe(302);
  }, 120_000);
});
