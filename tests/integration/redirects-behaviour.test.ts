import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hashPassword } from "../../lib/auth/password.ts";
import { db, disconnectDb } from "../../lib/db/client.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { clicksOf, createDomain, createLink, createWorkspace, request, within } from "./redirects-helpers.ts";

// Redirect behaviour over real HTTP against the real server and PostgreSQL (docs/guide.md "Short links").
const SHORT = "short.test";
const BRAND = "go.brand.test";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ws: { id: number };
const HOUR = 3_600_000;
const FALLBACK = "https://fallback.example/";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36";

const get = (host: string, path: string, headers?: Record<string, string>) => request(app.port, host, path, { headers });

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  ws = await createWorkspace();
  const brand = await createDomain(ws.id, BRAND);
  await createDomain(ws.id, "pending.brand.test", { verified: false });
  await createDomain(ws.id, "off.brand.test", { active: false });
  await createLink(ws.id, { code: "same", url: "https://default.example/" });
  await createLink(ws.id, { code: "same", url: "https://brand.example/", domainId: brand.id });
  app = await startApp(database.url, { SHORT_DOMAIN: SHORT, GEO_COUNTRY_HEADER: "CF-IPCountry" });
});

afterAll(async () => {
  await app?.stop();
  await disconnectDb();
  await database?.drop();
});

describe("hosts and codes", () => {
  test("the same code answers per host: default domain vs custom domain", async () => {
    expect(await get(SHORT, "/same")).toMatchObject({ status: 302, location: "https://default.example/" });
    expect(await get(BRAND, "/same")).toMatchObject({ status: 302, location: "https://brand.example/" });
    expect(await get("GO.Brand.Test:443", "/same?utm_source=x")).toMatchObject({ status: 302, location: "https://brand.example/" });
  });

  test("unknown host, unverified or inactive domain, unknown code: the small 404 page", async () => {
    for (const host of ["unknown.test", "pending.brand.test", "off.brand.test", `127.0.0.1:${app.port}`]) {
      const r = await get(host, "/same");
      expect(r.status, host).toBe(404);
      expect(r.headers["content-type"]).toContain("text/html");
      expect(r.body.length).toBeLessThan(2048);
      expect(r.body).not.toContain("<script");
    }
    expect((await get(SHORT, "/nope")).status).toBe(404);
    expect((await get(BRAND, "/nope")).status).toBe(404);
    expect((await get(BRAND, "/")).status).toBe(404);
    expect((await request(app.port, SHORT, "/nope", { method: "HEAD" })).status).toBe(404);
  });

  test("the app keeps its own paths on the shared short domain and on other hosts", async () => {
    expect((await get(SHORT, "/login")).status).toBe(200);
    expect((await get(`127.0.0.1:${app.port}`, "/login")).status).toBe(200);
    expect((await get(SHORT, "/")).status).not.toBe(404);
  });
});

describe("lifecycle, with and without fallbackUrl", () => {
  const cases = [
    { name: "inactive", fields: { active: false }, status: 404, text: "switched off" },
    { name: "not started", fields: { startsOn: new Date(Date.now() + HOUR) }, status: 404, text: "not active yet" },
    { name: "expired", fields: { expiresOn: new Date(Date.now() - 1000) }, status: 410, text: "expired" },
    { name: "cap reached", fields: { maxClicks: 3, clicks: 3 }, status: 410, text: "click limit" },
  ];
  for (const [i, c] of cases.entries()) {
    test(`${c.name}: ${c.status} page without fallback, 302 to fallback with`, async () => {
      await createLink(ws.id, { code: `life${i}`, ...c.fields });
      await createLink(ws.id, { code: `lifefb${i}`, ...c.fields, fallbackUrl: FALLBACK });
      const page = await get(SHORT, `/life${i}`);
      expect(page.status).toBe(c.status);
      expect(page.body).toContain(c.text);
      expect(await get(SHORT, `/lifefb${i}`)).toMatchObject({ status: 302, location: FALLBACK });
      expect((await request(app.port, SHORT, `/lifefb${i}`, { method: "HEAD" })).status).toBe(302);
    });
  }

  test("none of those answers counts a click", async () => {
    const blocked: { id: number; clicks: number }[] = [];
    for (const [i, c] of cases.entries()) {
      for (const fallbackUrl of [undefined, FALLBACK]) {
        const code = `nocount${i}${fallbackUrl ? "fb" : ""}`;
        const link = await createLink(ws.id, { code, ...c.fields, fallbackUrl });
        blocked.push({ id: link.id, clicks: link.clicks });
        await get(SHORT, `/${code}`);
        await request(app.port, SHORT, `/${code}`, { method: "HEAD" });
      }
    }
    // A click on an open link made after all of them: once it is written, so is anything counted
    // before it (clicks are written in batches, in order).
    const witness = await createLink(ws.id, { code: "nocountwitness" });
    expect((await get(SHORT, "/nocountwitness")).status).toBe(302);
    await within(15_000, async () => (await clicksOf(witness.id)).events === 1);
    for (const b of blocked) expect(await clicksOf(b.id)).toEqual({ clicks: b.clicks, events: 0 });
  });

  test("a link of a switched-off workspace answers as inactive", async () => {
    const off = await createWorkspace(false);
    await createLink(off.id, { code: "wsoff" });
    expect((await get(SHORT, "/wsoff")).status).toBe(404);
  });

  test("a link that starts and expires is open in between", async () => {
    await createLink(ws.id, { code: "window", startsOn: new Date(Date.now() - HOUR), expiresOn: new Date(Date.now() + HOUR) });
    expect((await get(SHORT, "/window")).status).toBe(302);
  });
});

describe("clicks", () => {
  test("each GET to the destination counts once, HEAD never; each click is stored with its day", async () => {
    const link = await createLink(ws.id, { code: "counted" });
    const firstDay = new Date().toISOString().slice(0, 10);
    for (let i = 0; i < 5; i++) expect((await get(SHORT, "/counted")).status).toBe(302);
    for (let i = 0; i < 3; i++) expect((await request(app.port, SHORT, "/counted", { method: "HEAD" })).status).toBe(302);
    const lastDay = new Date().toISOString().slice(0, 10);
    await within(15_000, async () => (await clicksOf(link.id)).clicks === 5);
    expect(await clicksOf(link.id)).toEqual({ clicks: 5, events: 5 });
    // the redirect handler stamps each click with its own clock: the UTC day(s) the requests were
    // made on (two when the run crossed midnight)
    const days = await db().$queryRaw<
      { day: string }[]
    >`select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as day from analytics.click_event where link_id = ${link.id}`;
    expect(days).toHaveLength(5);
    for (const d of days) expect([firstDay, lastDay]).toContain(d.day);
  });

  test("200 parallel requests on maxClicks 50: exactly 50 to the destination, the rest to the fallback", async () => {
    const link = await createLink(ws.id, { code: "capped", url: "https://dest.example/capped", maxClicks: 50, fallbackUrl: FALLBACK });
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(SHORT, "/capped")));
    const to = (url: string) => answers.filter((a) => a.status === 302 && a.location === url).length;
    expect(to("https://dest.example/capped")).toBe(50);
    expect(to(FALLBACK)).toBe(150);
    await within(15_000, async () => (await clicksOf(link.id)).events === 50);
    expect(await clicksOf(link.id)).toEqual({ clicks: 50, events: 50 });
  });

  test("a capped link without fallback answers 410 once the cap is reached; HEAD does not count", async () => {
    const link = await createLink(ws.id, { code: "cap2", maxClicks: 2 });
    expect((await request(app.port, SHORT, "/cap2", { method: "HEAD" })).status).toBe(302);
    expect((await get(SHORT, "/cap2")).status).toBe(302);
    expect((await get(SHORT, "/cap2")).status).toBe(302);
    expect((await get(SHORT, "/cap2")).status).toBe(410);
    expect((await request(app.port, SHORT, "/cap2", { method: "HEAD" })).status).toBe(410);
    expect((await clicksOf(link.id)).clicks).toBe(2);
  });
});

describe("password-protected links", () => {
  let hash: string;
  beforeAll(async () => {
    hash = await hashPassword("open sesame");
  });

  test("GET shows a form posting `password` to the link's own URL; nothing is counted", async () => {
    const link = await createLink(ws.id, { code: "secret", passwordHash: hash });
    const form = await get(SHORT, "/secret");
    expect(form.status).toBe(200);
    expect(form.body).toMatch(/<form method="post" action="\/secret">/);
    expect(form.body).toMatch(/<label for="password">/);
    expect(form.body).toContain('name="password"');
    expect(form.body).not.toContain("dest.example");
    expect(form.headers["cache-control"]).toBe("no-store");
    // Clicks are written in batches: a click on another link after the form, once stored, means any
    // click the form had counted would be stored too.
    const marker = await createLink(ws.id, { code: "secret-marker" });
    expect((await get(SHORT, "/secret-marker")).status).toBe(302);
    await within(15_000, async () => (await clicksOf(marker.id)).events === 1);
    expect(await clicksOf(link.id)).toEqual({ clicks: 0, events: 0 });
  });

  test("the right password redirects and counts; a wrong one answers 401 with the form", async () => {
    const link = await createLink(ws.id, { code: "secret2", passwordHash: hash });
    const wrong = await request(app.port, SHORT, "/secret2", { form: { password: "nope" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('name="password"');
    expect(wrong.body).toContain("Wrong password");
    const right = await request(app.port, SHORT, "/secret2", { form: { password: "open sesame" } });
    expect(right).toMatchObject({ status: 302, location: "https://dest.example/secret2" });
    await within(15_000, async () => (await clicksOf(link.id)).clicks === 1);
  });

  test("on a custom domain too", async () => {
    const brand = await db().domain.findFirstOrThrow({ where: { host: BRAND } });
    await createLink(ws.id, { code: "secret3", passwordHash: hash, domainId: brand.id, url: "https://brand.example/secret" });
    expect((await get(BRAND, "/secret3")).status).toBe(200);
    expect(await request(app.port, BRAND, "/secret3", { form: { password: "open sesame" } })).toMatchObject({
      status: 302,
      location: "https://brand.example/secret",
    });
  });

  test("more than 10 wrong guesses per visitor and link answer 429, even with the right password", async () => {
    await createLink(ws.id, { code: "guarded", passwordHash: hash });
    await createLink(ws.id, { code: "guarded2", passwordHash: hash });
    const tries = await Promise.all(
      Array.from({ length: 10 }, (_, i) => request(app.port, SHORT, "/guarded", { form: { password: `wrong${i}` } })),
    );
    expect(tries.map((t) => t.status)).toEqual(Array(10).fill(401));
    const over = await request(app.port, SHORT, "/guarded", { form: { password: "open sesame" } });
    expect(over.status).toBe(429);
    expect(over.body).toContain("Too many");
    // another link is not affected
    expect((await request(app.port, SHORT, "/guarded2", { form: { password: "open sesame" } })).status).toBe(302);
  });

  test("an expired protected link answers as expired, not with the form", async () => {
    await createLink(ws.id, { code: "secretold", passwordHash: hash, expiresOn: new Date(Date.now() - 1000), fallbackUrl: FALLBACK });
    expect(await get(SHORT, "/secretold")).toMatchObject({ status: 302, location: FALLBACK });
    expect(await request(app.port, SHORT, "/secretold", { form: { password: "open sesame" } })).toMatchObject({
      status: 302,
      location: FALLBACK,
    });
  });

  test("an oversized form is refused", async () => {
    await createLink(ws.id, { code: "secret4", passwordHash: hash });
    const r = await request(app.port, SHORT, "/secret4", { form: { password: "x".repeat(10_000) } });
    expect(r.status).toBe(413);
  });
});

describe("targeting", () => {
  test("ios / android by User-Agent, country by GEO_COUNTRY_HEADER, else the destination; all count", async () => {
    const link = await createLink(ws.id, {
      code: "targeted",
      url: "https://dest.example/t",
      targeting: { ios: "https://apps.apple.com/app", android: "https://play.google.com/app", geo: { DE: "https://dest.example/de" } },
    });
    expect((await get(SHORT, "/targeted", { "user-agent": IPHONE })).location).toBe("https://apps.apple.com/app");
    expect((await get(SHORT, "/targeted", { "user-agent": ANDROID })).location).toBe("https://play.google.com/app");
    expect((await get(SHORT, "/targeted", { "cf-ipcountry": "DE" })).location).toBe("https://dest.example/de");
    expect((await get(SHORT, "/targeted", { "x-country": "DE" })).location).toBe("https://dest.example/t");
    // a desktop browser (curl would be a bot: redirected alike, but not counted)
    expect(
      (
        await get(SHORT, "/targeted", {
          "cf-ipcountry": "FR",
          "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0",
        })
      ).location,
    ).toBe("https://dest.example/t");
    await within(15_000, async () => (await clicksOf(link.id)).clicks === 5);
  });
});
