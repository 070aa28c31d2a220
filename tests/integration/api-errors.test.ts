import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorSchemas } from "../../lib/api/schemas.ts";
import { db } from "../../lib/db/client.ts";
import { revokeApiKey } from "../../lib/keys/index.ts";
import {
  call,
  client,
  makeDomain,
  makeWorkspace,
  rateHeaders,
  startApiTest,
  TEST_PLANS,
  type Answer,
  type ApiTestEnv,
} from "../support/api.ts";

// Every row of the error table (docs/api.md "Endpoints", lib/api/schemas.ts) over real HTTP: exact bodies (byte for byte where the body
// is fixed), the headers each answer owes, and the check order of lib/api/handler.ts.

let env: ApiTestEnv;
const plans = {
  ...TEST_PLANS,
  // ApiAccess only and an allowance of 1: for "feature before quota"
  mini: { name: "Mini", rateLimit: null, liveKeys: 2, maxLinks: 1, webhookEndpoints: 0, features: ["ApiAccess"] },
  // pro's budget with webhooks: a refused create must leave no event and no delivery behind
  prohooks: { ...TEST_PLANS.pro, name: "Pro with webhooks", webhookEndpoints: 1, features: [...TEST_PLANS.pro.features, "Webhooks"] },
  // 3 requests per window and no aliases or bulk: for "a refused create spends no allowance"
  tinyfree: { name: "Tiny free", rateLimit: 3, liveKeys: 1, maxLinks: 500, webhookEndpoints: 0, features: ["ApiAccess"] },
};

beforeAll(async () => {
  env = await startApiTest({ plans });
});
afterAll(async () => {
  await env?.stop();
});

const UNAUTHORIZED = '{"error":"unauthorized"}';

function expectNoRateHeaders(a: Answer) {
  expect(a.headers["x-ratelimit-limit"]).toBeUndefined();
  expect(a.headers["x-ratelimit-remaining"]).toBeUndefined();
}

function expectValidation(a: Answer) {
  expect(a.status, a.text).toBe(400);
  expect(a.headers["content-type"]).toMatch(/^application\/json/);
  const body = errorSchemas.validation.parse(a.body);
  for (const m of body.messages) expect(m.length).toBeGreaterThan(0);
  return body.messages.join(" | ");
}

/** Headers that must be the same on every 401 (everything but the date and connection handling). */
/** The headers that are the same for every request of a kind (not the date, nor the request's own id). */
function headerSignature(a: Answer) {
  return Object.entries(a.headers)
    .filter(([k]) => !["date", "connection", "keep-alive", "x-request-id"].includes(k))
    .sort(([x], [y]) => x.localeCompare(y));
}

describe("401 unauthorized", () => {
  it("answers the same bytes and headers for a missing, malformed, unknown, revoked or expired key and an inactive workspace, with no rate headers", async () => {
    const { workspace, keys } = await makeWorkspace("team", { keys: 3 });
    await revokeApiKey(workspace, keys[1].id);
    await db().apiKey.update({ where: { id: keys[2].id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const inactive = await makeWorkspace("team", { active: false });
    const unknown = "lh_" + "A".repeat(40);
    const cases: { name: string; auth: { authorization?: string; key?: string } }[] = [
      { name: "missing", auth: {} },
      { name: "empty", auth: { authorization: "" } },
      { name: "scheme only", auth: { authorization: "Bearer" } },
      { name: "basic", auth: { authorization: "Basic dXNlcjpwYXNz" } },
      { name: "no scheme", auth: { authorization: keys[0].key } },
      { name: "malformed", auth: { authorization: "Bearer lh_short" } },
      { name: "unknown", auth: { key: unknown } },
      { name: "revoked", auth: { key: keys[1].key } },
      { name: "expired", auth: { key: keys[2].key } },
      { name: "inactive workspace", auth: { key: inactive.key } },
    ];
    const answers: Answer[] = [];
    for (const c of cases) {
      for (const [method, path, json] of [
        ["POST", "/api/v1/links", { url: "https://example.com" }],
        ["GET", "/api/v1/links", undefined],
        ["DELETE", "/api/v1/links/abc", undefined],
      ] as const) {
        const a = await call(env.app, method, path, { ...c.auth, ...(json ? { json } : {}) });
        expect(a.status, `${c.name} ${method}`).toBe(401);
        expect(a.text, c.name).toBe(UNAUTHORIZED);
        expectNoRateHeaders(a);
        answers.push(a);
      }
    }
    const first = headerSignature(answers[0]);
    for (const a of answers) expect(headerSignature(a)).toEqual(first);
    // The good key works, and nothing was created by the refused requests.
    const good = await call(env.app, "GET", "/api/v1/links", { key: keys[0].key });
    expect(good.status).toBe(200);
    expect(good.body.links).toEqual([]);
  });

  it("answers 401 to a key the moment it is revoked, and a scheme written in any case works", async () => {
    const { workspace, keys } = await makeWorkspace("team");
    expect((await call(env.app, "GET", "/api/v1/links", { authorization: `bearer ${keys[0].key}` })).status).toBe(200);
    await revokeApiKey(workspace, keys[0].id);
    const a = await call(env.app, "GET", "/api/v1/links", { key: keys[0].key });
    expect(a.status).toBe(401);
    expect(a.text).toBe(UNAUTHORIZED);
  });
});

describe("403 feature ApiAccess", () => {
  it("answers before the limiter: exact body, no rate-limit headers, whatever the request", async () => {
    const { key } = await makeWorkspace("noapi");
    const api = client(env.app, key);
    for (const a of [
      await api.get("/api/v1/links"),
      await api.post("/api/v1/links", { url: "https://example.com" }),
      await api.post("/api/v1/links", undefined, { body: "{not json" }),
      await api.get("/api/v1/links/nothing"),
      await api.get("/api/v1/nowhere"),
    ]) {
      expect(a.status).toBe(403);
      expect(a.text).toBe('{"error":"feature","key":"ApiAccess","upgrade":true}');
      expectNoRateHeaders(a);
    }
    // More requests than any budget: still 403, never 429.
    for (let i = 0; i < 35; i++) expect((await api.get("/api/v1/links")).status).toBe(403);
  });
});

describe("rate limit headers, case by case", () => {
  it("carries Limit and Remaining on successes and errors, 429 with Remaining 0 and no Retry-After, 429 before validation", async () => {
    const { key } = await makeWorkspace("tiny"); // 3 per window
    const api = client(env.app, key);
    const ok = await api.get("/api/v1/links");
    expect(ok.status).toBe(200);
    expect(rateHeaders(ok)).toEqual({ limit: "3", remaining: "2" });
    const bad = await api.post("/api/v1/links", { nope: 1 });
    expectValidation(bad);
    expect(rateHeaders(bad)).toEqual({ limit: "3", remaining: "1" });
    const missing = await api.get("/api/v1/links/none");
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('{"error":"not_found"}');
    expect(rateHeaders(missing)).toEqual({ limit: "3", remaining: "0" });
    for (const a of [
      await api.get("/api/v1/links"),
      await api.post("/api/v1/links", undefined, { body: "{broken" }),
      await api.post("/api/v1/links/bulk", { links: [] }),
    ]) {
      expect(a.status).toBe(429);
      expect(a.text).toBe('{"error":"rate_limit","limit":3}');
      expect(rateHeaders(a)).toEqual({ limit: "3", remaining: "0" });
      // No reset time in any form: no Retry-After, no *-Reset header (the body above is exact).
      expect(
        Object.keys(a.headers)
          .filter((h) => /retry|reset|ratelimit/i.test(h))
          .sort(),
      ).toEqual(["x-ratelimit-limit", "x-ratelimit-remaining"]);
    }
  });

  it("spends no allowance on a create refused with 429 or 403 feature", async () => {
    const { key, workspace } = await makeWorkspace("tinyfree");
    const api = client(env.app, key);
    const used = async () =>
      (await db().monthlyUsage.findMany({ where: { workspaceId: workspace.id } })).reduce((n, u) => n + u.created, 0);
    const feature = await api.post("/api/v1/links", { url: "https://example.com/f", alias: "needs-feature" });
    expect(feature.text).toBe('{"error":"feature","key":"CustomAliases","upgrade":true}');
    expect(await used()).toBe(0);
    for (let i = 0; i < 2; i++) expect((await api.post("/api/v1/links", { url: `https://example.com/${i}` })).status).toBe(201);
    expect(await used()).toBe(2);
    for (let i = 0; i < 2; i++) expect((await api.post("/api/v1/links", { url: `https://example.com/over-${i}` })).status).toBe(429);
    expect(await used()).toBe(2);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(2);
  });

  it("sends no rate-limit headers at all on a plan without a rate", async () => {
    const { key } = await makeWorkspace("open");
    const api = client(env.app, key);
    const answers = [
      await api.post("/api/v1/links", { url: "https://example.com/open" }),
      await api.get("/api/v1/links"),
      await api.post("/api/v1/links", { url: "nope" }),
      await api.get("/api/v1/links/none"),
      await api.get("/api/v1/unknown/path"),
    ];
    expect(answers.map((a) => a.status)).toEqual([201, 200, 400, 404, 404]);
    answers.forEach(expectNoRateHeaders);
  });

  it("carries the headers on 403 feature (not ApiAccess) and 409 answers", async () => {
    const { key } = await makeWorkspace("free");
    const api = client(env.app, key);
    const a = await api.post("/api/v1/links", { url: "https://example.com", alias: "mine" });
    expect(a.status).toBe(403);
    expect(rateHeaders(a)).toEqual({ limit: "30", remaining: "29" });
    const pro = client(env.app, (await makeWorkspace("pro")).key);
    await pro.post("/api/v1/links", { url: "https://example.com", alias: `t-${Date.now()}` });
    const taken = await pro.post("/api/v1/links", { url: "https://example.com", alias: "api" });
    expect(taken.status).toBe(409);
    expect(rateHeaders(taken)).toEqual({ limit: "120", remaining: "118" });
  });
});

describe("400 validation", () => {
  it("refuses malformed bodies, wrong content types and oversized bodies with messages, creating nothing", async () => {
    const { key, workspace } = await makeWorkspace("prohooks");
    // an endpoint subscribed to everything: a create that got through would leave an event and a delivery
    await db().webhookEndpoint.create({
      data: { workspaceId: workspace.id, url: "https://hooks.example.test/in", secret: "s".repeat(32) },
    });
    const api = client(env.app, key);
    const written = async () => ({
      links: await db().link.count({ where: { workspaceId: workspace.id } }),
      events: await db().webhookEvent.count({ where: { workspaceId: workspace.id } }),
      deliveries: await db().delivery.count({ where: { event: { workspaceId: workspace.id } } }),
      usage: (await db().monthlyUsage.findMany({ where: { workspaceId: workspace.id } })).reduce((n, u) => n + u.created, 0),
    });
    const nothing = { links: 0, events: 0, deliveries: 0, usage: 0 };
    expect(await written()).toEqual(nothing);
    const cases: [string, Promise<Answer>][] = [
      ["broken JSON", api.post("/api/v1/links", undefined, { body: '{"url":' })],
      ["text/plain", api.post("/api/v1/links", undefined, { body: '{"url":"https://example.com"}', contentType: "text/plain" })],
      ["form", api.post("/api/v1/links", undefined, { body: "url=https://example.com", contentType: "application/x-www-form-urlencoded" })],
      ["no content type", api.post("/api/v1/links", undefined, { body: '{"url":"https://example.com"}', contentType: null })],
      ["empty body", api.post("/api/v1/links", undefined, { body: "" })],
      ["no body", api.call("POST", "/api/v1/links", { contentType: "application/json" })],
      ["array", api.post("/api/v1/links", [])],
      ["null", api.post("/api/v1/links", null)],
      ["string", api.post("/api/v1/links", "https://example.com")],
      ["huge", api.post("/api/v1/links", { url: "https://example.com", notes: "x".repeat(200_000) })],
      ["bad utf-8", api.post("/api/v1/links", undefined, { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]) })],
      ["unknown field", api.post("/api/v1/links", { url: "https://example.com", colour: "blue" })],
      ["proto key", api.post("/api/v1/links", undefined, { body: '{"url":"https://example.com","__proto__":{"x":1}}' })],
      ["missing url", api.post("/api/v1/links", { title: "no url" })],
      ["url not a URL", api.post("/api/v1/links", { url: "not a url" })],
      ["url not http", api.post("/api/v1/links", { url: "ftp://example.com/file" })],
      ["javascript url", api.post("/api/v1/links", { url: "javascript:alert(1)" })],
      ["url number", api.post("/api/v1/links", { url: 42 })],
      ["alias too long", api.post("/api/v1/links", { url: "https://example.com", alias: "a".repeat(41) })],
      ["alias characters", api.post("/api/v1/links", { url: "https://example.com", alias: "a b" })],
      ["alias unicode", api.post("/api/v1/links", { url: "https://example.com", alias: "käse" })],
      ["alias empty", api.post("/api/v1/links", { url: "https://example.com", alias: "" })],
      ["maxClicks 0", api.post("/api/v1/links", { url: "https://example.com", maxClicks: 0 })],
      ["expiresOn fraction", api.post("/api/v1/links", { url: "https://example.com", expiresOn: 1.5 })],
      ["expiresOn string", api.post("/api/v1/links", { url: "https://example.com", expiresOn: "tomorrow" })],
      [
        "startsOn after expiresOn",
        api.post("/api/v1/links", { url: "https://example.com", startsOn: 2_000_000_000, expiresOn: 1_900_000_000 }),
      ],
      ["active string", api.post("/api/v1/links", { url: "https://example.com", active: "yes" })],
      [
        "targeting country",
        api.post("/api/v1/links", { url: "https://example.com", targeting: { geo: { usa: "https://example.com/us" } } }),
      ],
      ["targeting unknown key", api.post("/api/v1/links", { url: "https://example.com", targeting: { windows: "https://example.com/w" } })],
      ["folder empty segment", api.post("/api/v1/links", { url: "https://example.com", folder: "a//b" })],
    ];
    for (const [name, p] of cases) {
      const a = await p;
      const messages = expectValidation(a);
      expect(rateHeaders(a).limit, name).toBe("120");
      // the offending field is named (the wording around it may change)
      if (name === "unknown field") expect(messages).toMatch(/colour/);
      if (name === "missing url") expect(messages).toMatch(/url/);
      if (name === "alias too long") expect(messages).toMatch(/alias/);
    }
    expect(await written()).toEqual(nothing);
    // the same counts do move for a create that is accepted
    expect((await api.post("/api/v1/links", { url: "https://example.com/accepted" })).status).toBe(201);
    expect(await written()).toEqual({ links: 1, events: 1, deliveries: 1, usage: 1 });
  });

  it("refuses destinations on the denylist (and its subdomains) and addresses that are already short links", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const other = await makeWorkspace("pro");
    const suffix = Date.now().toString(36);
    await makeDomain(other.workspace.id, `go-${suffix}.other.test`);
    await makeDomain(other.workspace.id, `unverified-${suffix}.other.test`, { verified: false });
    const api = client(env.app, key);
    for (const body of [
      { url: "https://blocked.example/page" },
      { url: "https://www.blocked.example/page" },
      { url: "http://EVIL.test/" },
      { url: "http://localhost:3000/abc" },
      { url: `https://go-${suffix}.other.test/abc` },
      { url: "https://example.com", fallbackUrl: "http://localhost:3000/x" },
      { url: "https://example.com", targeting: { ios: "https://blocked.example/app" } },
      { url: "https://example.com", targeting: { geo: { DE: `https://go-${suffix}.other.test/de` } } },
    ]) {
      const a = await api.post("/api/v1/links", body);
      expect(expectValidation(a), JSON.stringify(body)).toMatch(/destination|short-link host/);
    }
    // Not refused: a lookalike host, localhost on another port, an unverified domain.
    for (const url of ["https://notblocked.example/", "http://localhost:3001/", `https://unverified-${suffix}.other.test/`]) {
      expect((await api.post("/api/v1/links", { url })).status, url).toBe(201);
    }
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(3);
  });

  it("refuses a domain on create that is not the caller's verified, active domain, and a domain query parameter that is not the caller's", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const other = await makeWorkspace("pro");
    const s = Date.now().toString(36);
    await makeDomain(workspace.id, `mine-${s}.test`);
    await makeDomain(workspace.id, `unverified-${s}.test`, { verified: false });
    await makeDomain(workspace.id, `inactive-${s}.test`, { active: false });
    await makeDomain(other.workspace.id, `theirs-${s}.test`);
    const api = client(env.app, key);
    for (const domain of [`unverified-${s}.test`, `inactive-${s}.test`, `theirs-${s}.test`, `nowhere-${s}.test`]) {
      expect(expectValidation(await api.post("/api/v1/links", { url: "https://example.com", domain }))).toMatch(/domain/);
    }
    const created = await api.post("/api/v1/links", { url: "https://example.com", domain: `MINE-${s}.test`, alias: "on-mine" });
    expect(created.status).toBe(201);
    expect(created.body.domain).toBe(`mine-${s}.test`);
    expect((await api.post("/api/v1/links", { url: "https://example.com", domain: "localhost:3000" })).body.domain).toBe("localhost:3000");
    for (const [method, path] of [
      ["GET", `/api/v1/links/on-mine?domain=theirs-${s}.test`],
      ["DELETE", `/api/v1/links/on-mine?domain=nowhere-${s}.test`],
      ["GET", `/api/v1/links?domain=theirs-${s}.test`],
    ]) {
      expectValidation(await api.call(method, path));
    }
    expectValidation(await api.patch(`/api/v1/links/on-mine?domain=theirs-${s}.test`, { title: "x" }));
    // The caller's own (even unverified) domain is a valid query: the link is just not there.
    expect((await api.get(`/api/v1/links/on-mine?domain=unverified-${s}.test`)).status).toBe(404);
    expect((await api.get(`/api/v1/links/on-mine?domain=mine-${s}.test`)).status).toBe(200);
    // PATCH cannot change the domain.
    expect(expectValidation(await api.patch(`/api/v1/links/on-mine`, { domain: "localhost:3000" }))).toMatch(/domain/);
  });

  it("refuses bad query strings", async () => {
    const api = client(env.app, (await makeWorkspace("pro")).key);
    for (const q of [
      "size=0",
      "size=101",
      "size=abc",
      "size=1.5",
      "size=-1",
      "size=",
      "cursor=nonsense",
      "cursor=" + "A".repeat(300),
      "sort=asc",
      "size=10&size=20",
      "q=" + "x".repeat(201),
    ]) {
      expectValidation(await api.get(`/api/v1/links?${q}`));
    }
    expectValidation(await api.get("/api/v1/links/abc?foo=bar"));
    expect((await api.get("/api/v1/links?size=100")).status).toBe(200);
    expect((await api.get("/api/v1/links?size=1")).status).toBe(200);
  });
});

describe("403 feature", () => {
  it("checks custom aliases, expiry, start time, passwords, custom domains and bulk creation separately", async () => {
    const { key, workspace } = await makeWorkspace("free");
    const s = Date.now().toString(36);
    await makeDomain(workspace.id, `free-${s}.test`); // e.g. kept after a downgrade
    const api = client(env.app, key);
    const expectFeature = (a: Answer, feature: string) => {
      expect(a.status).toBe(403);
      expect(a.text).toBe(`{"error":"feature","key":"${feature}","upgrade":true}`);
      expect(rateHeaders(a).limit).toBe("30");
    };
    expectFeature(await api.post("/api/v1/links", { url: "https://example.com", alias: "free1" }), "CustomAliases");
    expectFeature(await api.post("/api/v1/links", { url: "https://example.com", expiresOn: 2_000_000_000 }), "LinkExpiry");
    expectFeature(await api.post("/api/v1/links", { url: "https://example.com", startsOn: 2_000_000_000 }), "LinkExpiry");
    expectFeature(await api.post("/api/v1/links", { url: "https://example.com", password: "secret" }), "LinkPasswords");
    expectFeature(await api.post("/api/v1/links", { url: "https://example.com", domain: `free-${s}.test` }), "CustomDomains");
    expectFeature(await api.post("/api/v1/links/bulk", { links: [{ url: "https://example.com" }] }), "BulkLinks");
    // Clearing needs no feature; what the plan has works.
    const plain = await api.post("/api/v1/links", { url: "https://example.com", expiresOn: null, password: null, maxClicks: 5 });
    expect(plain.status).toBe(201);
    expectFeature(await api.patch(`/api/v1/links/${plain.body.code}`, { alias: "renamed" }), "CustomAliases");
    expectFeature(await api.patch(`/api/v1/links/${plain.body.code}`, { expiresOn: 2_000_000_000 }), "LinkExpiry");
    expect((await api.patch(`/api/v1/links/${plain.body.code}`, { expiresOn: null, title: "ok" })).status).toBe(200);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(1);
  });

  it("follows the check order: 400 before 403 feature, 403 feature before 403 quota", async () => {
    const api = client(env.app, (await makeWorkspace("mini")).key); // allowance 1, no aliases
    expectValidation(await api.post("/api/v1/links", { url: "bad", alias: "x" }));
    expectValidation(await api.post("/api/v1/links/bulk", { links: [] }));
    expect((await api.post("/api/v1/links", { url: "https://example.com/1" })).status).toBe(201);
    const both = await api.post("/api/v1/links", { url: "https://example.com/2", alias: "x" });
    expect(both.text).toBe('{"error":"feature","key":"CustomAliases","upgrade":true}');
  });
});

describe("403 quota", () => {
  it("refuses creates past the monthly allowance, spends nothing on refusals, and deleting gives nothing back", async () => {
    const { key, workspace } = await makeWorkspace("quota3");
    const api = client(env.app, key);
    const codes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await api.post("/api/v1/links", { url: `https://example.com/${i}` });
      expect(a.status).toBe(201);
      codes.push(a.body.code);
    }
    const QUOTA = '{"error":"quota","key":"MaxLinks","limit":3,"current":3,"upgrade":true}';
    expect((await api.post("/api/v1/links", { url: "https://example.com/4" })).text).toBe(QUOTA);
    // quota comes before alias_taken
    expect((await api.post("/api/v1/links", { url: "https://example.com/5", alias: codes[0] })).text).toBe(QUOTA);
    expect((await api.delete(`/api/v1/links/${codes[0]}`)).text).toMatch(/"deleted":true/);
    const after = await api.post("/api/v1/links", { url: "https://example.com/6" });
    expect(after.status).toBe(403);
    expect(after.text).toBe(QUOTA);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(2);
    const usage = await db().monthlyUsage.findMany({ where: { workspaceId: workspace.id } });
    expect(usage.map((u) => u.created)).toEqual([3]);
  });

  it("spends nothing when a create is refused for a taken alias", async () => {
    const { key, workspace } = await makeWorkspace("quota3");
    const api = client(env.app, key);
    expect((await api.post("/api/v1/links", { url: "https://example.com", alias: "once" })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await api.post("/api/v1/links", { url: "https://example.com", alias: "once" })).status).toBe(409);
    expect((await api.post("/api/v1/links", { url: "https://example.com", alias: "api" })).status).toBe(409);
    const usage = await db().monthlyUsage.findFirst({ where: { workspaceId: workspace.id } });
    expect(usage?.created).toBe(1);
  });
});

describe("404 not_found", () => {
  it("answers for unknown codes, other workspaces' links and unknown API paths, and changes nothing", async () => {
    const mine = client(env.app, (await makeWorkspace("pro")).key);
    const other = await makeWorkspace("pro");
    const theirs = client(env.app, other.key);
    const alias = `theirs-${Date.now().toString(36)}`;
    expect((await theirs.post("/api/v1/links", { url: "https://example.com", alias })).status).toBe(201);
    const NOT_FOUND = '{"error":"not_found"}';
    for (const a of [
      await mine.get(`/api/v1/links/${alias}`),
      await mine.get(`/api/v1/links/${alias}?domain=localhost:3000`),
      await mine.patch(`/api/v1/links/${alias}`, { url: "https://example.com/hijack" }),
      await mine.delete(`/api/v1/links/${alias}`),
      await mine.get("/api/v1/links/never-made"),
      await mine.get("/api/v1/links/has%20space"),
      await mine.get("/api/v1/links/a/b"),
      await mine.post("/api/v1/nothing-here", { url: "https://example.com" }),
      await mine.get("/api/v1"),
    ]) {
      expect(a.status, a.text).toBe(404);
      expect(a.text).toBe(NOT_FOUND);
      expect(rateHeaders(a).limit).toBe("120");
    }
    const still = await theirs.get(`/api/v1/links/${alias}`);
    expect(still.body.url).toBe("https://example.com");
  });
});

describe("409", () => {
  it("alias_taken: an alias used on that domain, by anyone, or an app path; free again on another domain", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const s = Date.now().toString(36);
    await makeDomain(workspace.id, `alias-${s}.test`);
    const api = client(env.app, key);
    const other = client(env.app, (await makeWorkspace("pro")).key);
    const alias = `promo-${s}`;
    expect((await api.post("/api/v1/links", { url: "https://example.com", alias })).status).toBe(201);
    for (const a of [
      await api.post("/api/v1/links", { url: "https://example.com/2", alias }),
      await other.post("/api/v1/links", { url: "https://example.com/3", alias }),
    ]) {
      expect(a.status).toBe(409);
      expect(a.text).toBe(`{"error":"alias_taken","alias":"${alias}"}`);
    }
    for (const reserved of ["api", "docs", "login", "w", "_next", "bulk", "export"]) {
      expect((await api.post("/api/v1/links", { url: "https://example.com", alias: reserved })).text).toBe(
        `{"error":"alias_taken","alias":"${reserved}"}`,
      );
    }
    // case-sensitive codes, and the same alias on another domain
    expect((await api.post("/api/v1/links", { url: "https://example.com", alias: alias.toUpperCase() })).status).toBe(201);
    expect((await api.post("/api/v1/links", { url: "https://example.com", alias, domain: `alias-${s}.test` })).status).toBe(201);
    // PATCH to a taken alias
    const second = await api.post("/api/v1/links", { url: "https://example.com/second" });
    const renamed = await api.patch(`/api/v1/links/${second.body.code}`, { alias: alias.toUpperCase() });
    expect(renamed.text).toBe(`{"error":"alias_taken","alias":"${alias.toUpperCase()}"}`);
    expect((await api.get(`/api/v1/links/${second.body.code}`)).status).toBe(200);
  });

  it("ambiguous_code: a code on several of the caller's domains without domain reads, changes and deletes nothing", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const s = Date.now().toString(36);
    const hostA = `a-${s}.test`;
    const hostB = `b-${s}.test`;
    await makeDomain(workspace.id, hostA);
    await makeDomain(workspace.id, hostB);
    const api = client(env.app, key);
    for (const domain of [undefined, hostA, hostB]) {
      expect(
        (
          await api.post("/api/v1/links", {
            url: `https://example.com/${domain ?? "default"}`,
            alias: "dup",
            ...(domain ? { domain } : {}),
          })
        ).status,
      ).toBe(201);
    }
    const AMBIGUOUS = `{"error":"ambiguous_code","code":"dup","domains":[null,"${hostA}","${hostB}"]}`;
    for (const a of [
      await api.get("/api/v1/links/dup"),
      await api.patch("/api/v1/links/dup", { title: "changed" }),
      await api.delete("/api/v1/links/dup"),
    ]) {
      expect(a.status).toBe(409);
      expect(a.text).toBe(AMBIGUOUS);
      expect(rateHeaders(a).limit).toBe("120");
    }
    const links = await db().link.findMany({ where: { workspaceId: workspace.id, code: "dup" } });
    expect(links).toHaveLength(3);
    expect(links.every((l) => l.title === "")).toBe(true);
    expect((await api.get("/api/v1/links/dup?domain=localhost:3000")).body.url).toBe("https://example.com/default");
    expect((await api.get(`/api/v1/links/dup?domain=${hostB}`)).body.url).toBe(`https://example.com/${hostB}`);
    expect((await api.delete(`/api/v1/links/dup?domain=${hostA}`)).status).toBe(200);
    expect((await api.get("/api/v1/links/dup")).text).toBe(`{"error":"ambiguous_code","code":"dup","domains":[null,"${hostB}"]}`);
  });
});

/** A 500 in the specified shape, its reference in the header and in the app's log with a stack. */
async function expectServerError(a: Answer, cause: RegExp) {
  expect(a.status, a.text).toBe(500);
  expect(Object.keys(a.body).sort()).toEqual(["error", "message", "reference"]);
  errorSchemas.server_error.parse(a.body);
  expect(a.body.error).toBe("server_error");
  expect(a.body.reference).toMatch(/^err_[0-9a-f]{16}$/);
  expect(a.headers["x-error-reference"]).toBe(a.body.reference);
  await expect.poll(() => env.app.logs()).toContain(a.body.reference);
  const log = env.app.logs().slice(env.app.logs().indexOf(a.body.reference));
  expect(log).toMatch(cause);
  expect(log).toMatch(/\n\s+at /);
}

describe("500 server_error", () => {
  it("on bulk create, PATCH and DELETE: message and reference, and nothing changed", async () => {
    await db().$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION api_test_boom_write() RETURNS trigger AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          IF OLD.code LIKE 'boomdel%' THEN RAISE EXCEPTION 'boom on delete for the API test'; END IF;
          RETURN OLD;
        END IF;
        IF NEW.url LIKE '%/boom-write%' THEN RAISE EXCEPTION 'boom on write for the API test'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await db().$executeRawUnsafe(
      `CREATE TRIGGER api_test_boom_write BEFORE INSERT OR UPDATE OR DELETE ON "Link" FOR EACH ROW EXECUTE FUNCTION api_test_boom_write()`,
    );
    try {
      const { key, workspace } = await makeWorkspace("team");
      const api = client(env.app, key);

      const bulk = await api.post("/api/v1/links/bulk", {
        links: [{ url: "https://example.com/fine" }, { url: "https://example.com/boom-write" }],
      });
      await expectServerError(bulk, /boom on write for the API test/);
      expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
      expect((await db().monthlyUsage.findFirst({ where: { workspaceId: workspace.id } }))?.created ?? 0).toBe(0);

      expect((await api.post("/api/v1/links", { url: "https://example.com/before", alias: "boomdel-1" })).status).toBe(201);
      const patch = await api.patch("/api/v1/links/boomdel-1", { url: "https://example.com/boom-write" });
      await expectServerError(patch, /boom on write for the API test/);
      expect((await db().link.findFirstOrThrow({ where: { workspaceId: workspace.id, code: "boomdel-1" } })).url).toBe(
        "https://example.com/before",
      );

      const del = await api.delete("/api/v1/links/boomdel-1");
      await expectServerError(del, /boom on delete for the API test/);
      expect(await db().link.count({ where: { workspaceId: workspace.id, code: "boomdel-1" } })).toBe(1);
    } finally {
      await db().$executeRawUnsafe(`DROP TRIGGER IF EXISTS api_test_boom_write ON "Link"`);
    }
  });

  it("on list: message and reference", async () => {
    const { key } = await makeWorkspace("pro");
    const api = client(env.app, key);
    expect((await api.post("/api/v1/links", { url: "https://example.com/listed" })).status).toBe(201);
    // A column the app reads goes missing for a moment: every read of links fails in the database.
    await db().$executeRawUnsafe(`ALTER TABLE "Link" RENAME COLUMN "notes" TO "notes_missing_for_test"`);
    let list: Answer;
    try {
      list = await api.get("/api/v1/links");
    } finally {
      await db().$executeRawUnsafe(`ALTER TABLE "Link" RENAME COLUMN "notes_missing_for_test" TO "notes"`);
    }
    await expectServerError(list, /notes/);
    expect((await api.get("/api/v1/links")).status).toBe(200);
  });

  it("answers message and reference, the same reference in X-Error-Reference and in the log with the stack; nothing is created", async () => {
    await db().$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION api_test_boom() RETURNS trigger AS $$
      BEGIN IF NEW.url LIKE '%/boom-500%' THEN RAISE EXCEPTION 'boom for the API test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
    await db().$executeRawUnsafe(`CREATE TRIGGER api_test_boom BEFORE INSERT ON "Link" FOR EACH ROW EXECUTE FUNCTION api_test_boom()`);
    const { key, workspace } = await makeWorkspace("pro");
    let a: Answer;
    try {
      a = await client(env.app, key).post("/api/v1/links", { url: "https://example.com/boom-500" });
    } finally {
      // The trigger is this test's alone: other tests of the file share the database.
      await db().$executeRawUnsafe(`DROP TRIGGER api_test_boom ON "Link"`);
      await db().$executeRawUnsafe(`DROP FUNCTION api_test_boom()`);
    }
    expect(a.status).toBe(500);
    expect(Object.keys(a.body).sort()).toEqual(["error", "message", "reference"]);
    errorSchemas.server_error.parse(a.body);
    expect(a.body.reference).toMatch(/^err_[0-9a-f]{16}$/);
    expect(a.headers["x-error-reference"]).toBe(a.body.reference);
    expect(rateHeaders(a)).toEqual({ limit: "120", remaining: "119" });
    await expect.poll(() => env.app.logs()).toContain(a.body.reference);
    const log = env.app.logs().slice(env.app.logs().indexOf(a.body.reference));
    expect(log).toMatch(/boom for the API test/);
    expect(log).toMatch(/\n\s+at /);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect((await db().monthlyUsage.findFirst({ where: { workspaceId: workspace.id } }))?.created ?? 0).toBe(0);
  });
});
