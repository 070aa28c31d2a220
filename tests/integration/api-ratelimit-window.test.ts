import { afterAll, beforeAll, expect, it } from "vitest";
import { client, makeWorkspace, rateHeaders, startApiTest, TEST_PLANS, type ApiTestEnv } from "../support/api.ts";

// The rate window over HTTP with a short window (RATE_LIMIT_WINDOW_SECONDS=10) and TWO app processes
// on one database: the budget is shared exactly, and it comes back whole when the window ends.
// 10 s is long enough for the bursts below on a loaded machine (each check says so when not),
// short enough to wait for its end.

const WINDOW_S = 10;
const BUDGET = 5;
let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest({
    processes: 2,
    env: { RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_S) },
    plans: {
      ...TEST_PLANS,
      five: { name: "Five", rateLimit: BUDGET, liveKeys: 2, maxLinks: 1000, webhookEndpoints: 0, features: ["ApiAccess"] },
    },
  });
});
afterAll(async () => {
  await env?.stop();
});

it("two app processes share one key's budget exactly", async () => {
  // Warm both processes up (first requests compile routes), so the burst fits in one window.
  const warm = await makeWorkspace("open");
  for (const app of env.apps)
    for (let i = 0; i < 3; i++) expect((await client(app, warm.key).get("/api/v1/links?size=1")).status).toBe(200);
  const { key } = await makeWorkspace("five");
  const [a, b] = env.apps.map((app) => client(app, key));
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 4 * BUDGET }, (_, i) => (i % 2 ? a : b).get("/api/v1/links?size=1")));
  expect(Date.now() - started, "the burst must fit in one window for this test to mean anything").toBeLessThan(WINDOW_S * 1000);
  expect(answers.filter((x) => x.status === 200)).toHaveLength(BUDGET);
  expect(answers.filter((x) => x.status === 429)).toHaveLength(3 * BUDGET);
});

it("the window starts at the key's first request and the whole budget is back when it ends", async () => {
  const { key } = await makeWorkspace("five");
  const api = client(env.apps[0], key);
  const other = client(env.apps[1], key);
  const started = Date.now(); // the window starts later, at the first request
  for (let i = 0; i < BUDGET; i++) expect(rateHeaders(await api.get("/api/v1/links?size=1")).remaining).toBe(String(BUDGET - 1 - i));
  expect((await api.get("/api/v1/links?size=1")).status).toBe(429);
  // Still inside the window: still limited, and the other process agrees.
  const limitedByOther = await other.get("/api/v1/links");
  expect(Date.now() - started, "the requests must fit in one window for this test to mean anything").toBeLessThan(WINDOW_S * 1000);
  expect(limitedByOther.status).toBe(429);

  // Ask (refused requests spend nothing) until the budget is back; never before the window ended.
  let fresh = await other.get("/api/v1/links?size=1");
  while (fresh.status === 429 && Date.now() < started + (WINDOW_S + 15) * 1000) {
    await new Promise((r) => setTimeout(r, 250));
    fresh = await other.get("/api/v1/links?size=1");
  }
  expect(fresh.status).toBe(200);
  expect(Date.now()).toBeGreaterThanOrEqual(started + WINDOW_S * 1000);
  expect(rateHeaders(fresh)).toEqual({ limit: String(BUDGET), remaining: String(BUDGET - 1) });
  // The new window started with that request: the budget counts down from there.
  expect(rateHeaders(await api.get("/api/v1/links?size=1")).remaining).toBe(String(BUDGET - 2));
});
