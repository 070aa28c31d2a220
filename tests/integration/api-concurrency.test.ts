import { afterAll, beforeAll, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { client, makeWorkspace, rateHeaders, startApiTest, TEST_PLANS, type ApiTestEnv } from "../support/api.ts";

// Races over real HTTP: one alias, the last unit of the monthly allowance, and a key's request
// budget, each hit by many parallel requests at once.

let env: ApiTestEnv;
const BUDGET = 20;
beforeAll(async () => {
  env = await startApiTest({
    plans: {
      ...TEST_PLANS,
      budget: { name: "Budget", rateLimit: BUDGET, liveKeys: 5, maxLinks: 100_000, webhookEndpoints: 0, features: ["ApiAccess"] },
      allowance: {
        name: "Allowance",
        rateLimit: null,
        liveKeys: 5,
        maxLinks: 10,
        webhookEndpoints: 0,
        features: ["ApiAccess", "CustomAliases"],
      },
    },
  });
});
afterAll(async () => {
  await env?.stop();
});

const count = (statuses: number[], s: number) => statuses.filter((x) => x === s).length;

it("50 parallel creates with one alias: exactly one 201 and 49 alias_taken", async () => {
  const { key, workspace } = await makeWorkspace("open");
  const api = client(env.app, key);
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => api.post("/api/v1/links", { url: `https://example.com/race/${i}`, alias: "race" })),
  );
  const statuses = answers.map((a) => a.status);
  expect(count(statuses, 201), JSON.stringify(statuses)).toBe(1);
  expect(count(statuses, 409)).toBe(49);
  for (const a of answers.filter((x) => x.status === 409)) expect(a.text).toBe('{"error":"alias_taken","alias":"race"}');
  expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(1);
  expect((await db().monthlyUsage.findFirstOrThrow({ where: { workspaceId: workspace.id } })).created).toBe(1);
});

it("at the allowance minus one, 20 parallel creates give exactly one 201 and 19 quota errors", async () => {
  const { key, workspace } = await makeWorkspace("allowance");
  const api = client(env.app, key);
  for (let i = 0; i < 9; i++) expect((await api.post("/api/v1/links", { url: `https://example.com/fill/${i}` })).status).toBe(201);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => api.post("/api/v1/links", { url: `https://example.com/last/${i}` })),
  );
  const statuses = answers.map((a) => a.status);
  expect(count(statuses, 201), JSON.stringify(statuses)).toBe(1);
  expect(count(statuses, 403)).toBe(19);
  for (const a of answers.filter((x) => x.status === 403))
    expect(a.text).toBe('{"error":"quota","key":"MaxLinks","limit":10,"current":10,"upgrade":true}');
  expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(10);
  expect((await db().monthlyUsage.findFirstOrThrow({ where: { workspaceId: workspace.id } })).created).toBe(10);
});

it("2 x budget parallel requests on one key give exactly budget successes, each Remaining value once", async () => {
  const { key } = await makeWorkspace("budget");
  const api = client(env.app, key);
  const answers = await Promise.all(Array.from({ length: 2 * BUDGET }, () => api.get("/api/v1/links?size=1")));
  const ok = answers.filter((a) => a.status === 200);
  const limited = answers.filter((a) => a.status === 429);
  expect(ok).toHaveLength(BUDGET);
  expect(limited).toHaveLength(BUDGET);
  expect(ok.map((a) => Number(rateHeaders(a).remaining)).sort((x, y) => x - y)).toEqual(Array.from({ length: BUDGET }, (_, i) => i));
  for (const a of limited) {
    expect(a.text).toBe(`{"error":"rate_limit","limit":${BUDGET}}`);
    expect(rateHeaders(a)).toEqual({ limit: String(BUDGET), remaining: "0" });
  }
});

it("two keys of one workspace each get the full budget", async () => {
  const { keys } = await makeWorkspace("budget", { keys: 2 });
  const answers = await Promise.all(
    keys.flatMap((k) =>
      Array.from({ length: 2 * BUDGET }, () =>
        client(env.app, k.key)
          .get("/api/v1/links?size=1")
          .then((a) => ({ key: k.key, status: a.status })),
      ),
    ),
  );
  for (const k of keys) {
    const mine = answers.filter((a) => a.key === k.key);
    expect(
      count(
        mine.map((a) => a.status),
        200,
      ),
    ).toBe(BUDGET);
    expect(
      count(
        mine.map((a) => a.status),
        429,
      ),
    ).toBe(BUDGET);
  }
});

it("a bulk create counts as one request against the budget", async () => {
  const { key } = await makeWorkspace("team");
  const api = client(env.app, key);
  const a = await api.post("/api/v1/links/bulk", { links: Array.from({ length: 50 }, (_, i) => ({ url: `https://example.com/b/${i}` })) });
  expect(a.status).toBe(200);
  expect(rateHeaders(a)).toEqual({ limit: "600", remaining: "599" });
});

it("get-link (its link read in the rate statement): 2 x budget parallel requests give exactly budget answers, each Remaining value once", async () => {
  const { workspace, key } = await makeWorkspace("budget");
  await db().link.create({ data: { workspaceId: workspace.id, code: "counted", url: "https://example.com/counted" } });
  const api = client(env.app, key);
  // a link, a missing code, a code no link can have and a query that does not parse: every one counts
  const paths = ["/api/v1/links/counted", "/api/v1/links/missing", "/api/v1/links/no%20such", "/api/v1/links/counted?bad=1"];
  const answers = await Promise.all(Array.from({ length: 2 * BUDGET }, (_, i) => api.get(paths[i % paths.length])));
  const limited = answers.filter((a) => a.status === 429);
  const allowed = answers.filter((a) => a.status !== 429);
  expect(limited).toHaveLength(BUDGET);
  expect(allowed.map((a) => Number(rateHeaders(a).remaining)).sort((x, y) => x - y)).toEqual(Array.from({ length: BUDGET }, (_, i) => i));
  for (const a of allowed) {
    const path = paths[answers.indexOf(a) % paths.length];
    if (path === "/api/v1/links/counted") expect(a.body).toMatchObject({ code: "counted", url: "https://example.com/counted", tags: [] });
    else if (path.endsWith("?bad=1")) expect(a.status).toBe(400);
    else expect([a.status, a.text]).toEqual([404, '{"error":"not_found"}']);
  }
  for (const a of limited) {
    expect(a.text).toBe(`{"error":"rate_limit","limit":${BUDGET}}`);
    expect(rateHeaders(a)).toEqual({ limit: String(BUDGET), remaining: "0" });
  }
});
