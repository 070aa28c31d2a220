import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, makeDomain, makeWorkspace, startApiTest, TEST_PLANS, TEST_SHORT_DOMAIN, type ApiTestEnv } from "../support/api.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { freePort } from "../support/ports.ts";
import { clicksOf, createLink, request } from "./redirects-helpers.ts";
import { emitEvent, eventually, startHttpsReceiver } from "./webhooks-helpers.ts";

// /metrics of the real server, read with a Prometheus text parser: after a known sequence (3
// redirects, 1 not found, 2 API calls of which one is refused by the rate limit, 1 webhook delivery)
// the counters moved by exactly that; the main port answers only with METRICS_TOKEN; METRICS_PORT
// serves them too. /healthz, /readyz and /metrics are never links, even where a link row has
// such a code (made before the names were reserved), and never count as clicks.

const TOKEN = "metrics-token-0123456789abcdef";
const PLANS = {
  ...TEST_PLANS,
  one: { name: "One a minute", rateLimit: 1, liveKeys: 2, maxLinks: 500, webhookEndpoints: 10, features: TEST_PLANS.team.features },
};

let env: ApiTestEnv;
let metricsPort: number;
let receiver: Receiver;

beforeAll(async () => {
  metricsPort = await freePort();
  receiver = await startHttpsReceiver();
  env = await startApiTest({
    plans: PLANS,
    env: { METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort), WEBHOOK_ALLOW_PRIVATE: "1" },
  });
});

afterAll(async () => {
  await env?.stop();
  await receiver?.stop();
});

async function scrape(): Promise<PrometheusFamily[]> {
  const a = await call(env.app, "GET", "/metrics", { authorization: `Bearer ${TOKEN}` });
  expect(a.status).toBe(200);
  expect(a.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(a.text);
}

/** The sum of a family's samples whose labels include `labels` (0 when there are none). */
function value(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) return 0;
  return family.metrics
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value), 0);
}

/** An unlabelled histogram's count. */
function histogramCount(families: PrometheusFamily[], name: string): number {
  return Number(families.find((f) => f.name === name)?.metrics[0]?.count ?? 0);
}

describe("metrics", () => {
  it("move by exactly the requests made: redirects, API calls, rate-limit refusals, webhook deliveries", async () => {
    const { workspace, key } = await makeWorkspace("one");
    const link = await createLink(workspace.id, { code: "metrics-1" });
    const webhooks = await import("../../lib/webhooks/index.ts");
    await webhooks.createEndpoint(workspace.id, { url: receiver.url("127.0.0.1", "/hook") });
    // the operations endpoints before the counted sequence: none of them may count anywhere
    for (const path of ["/healthz", "/readyz", "/metrics"]) await request(env.app.port, TEST_SHORT_DOMAIN, path);

    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await request(env.app.port, TEST_SHORT_DOMAIN, "/metrics-1")).status).toBe(302);
    expect((await request(env.app.port, TEST_SHORT_DOMAIN, "/no-such-link")).status).toBe(404);
    expect((await call(env.app, "GET", "/api/v1/links", { key })).status).toBe(200);
    expect((await call(env.app, "GET", "/api/v1/links", { key })).status).toBe(429);
    const delivered = await emitEvent(workspace);
    expect(delivered.deliveryIds).toHaveLength(1);
    await receiver.waitFor(1);
    const after = await eventually(
      async () => {
        const now = await scrape();
        return value(now, "linkhop_webhook_attempts_total") > value(before, "linkhop_webhook_attempts_total") ? now : null;
      },
      15_000,
      "the attempt to be counted",
    );

    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect(delta("linkhop_redirects_total", { outcome: "redirect" })).toBe(3);
    expect(delta("linkhop_redirects_total", { outcome: "not_found" })).toBe(1);
    expect(delta("linkhop_redirects_total")).toBe(4);
    expect(histogramCount(after, "linkhop_redirect_duration_seconds") - histogramCount(before, "linkhop_redirect_duration_seconds")).toBe(
      4,
    );
    expect(delta("linkhop_redirect_cache_hits_total") + delta("linkhop_redirect_cache_misses_total")).toBe(4);
    expect(delta("linkhop_api_requests_total", { method: "GET", route: "/api/v1/links", status: "200" })).toBe(1);
    expect(delta("linkhop_api_requests_total", { method: "GET", route: "/api/v1/links", status: "429" })).toBe(1);
    expect(delta("linkhop_api_requests_total")).toBe(2);
    expect(delta("linkhop_api_rate_limited_total")).toBe(1);
    expect(delta("linkhop_webhook_attempts_total", { outcome: "delivered" })).toBe(1);
    expect(delta("linkhop_webhook_attempts_total")).toBe(1);

    // the scrape-time gauges are there, the database pools among them
    expect(value(after, "linkhop_db_pool_max_connections", { pool: "prisma" })).toBe(10);
    expect(value(after, "linkhop_db_pool_max_connections", { pool: "redirects" })).toBe(6);
    expect(value(after, "linkhop_db_pool_connections", { pool: "redirects" })).toBeGreaterThan(0);
    expect(value(after, "linkhop_redirect_cache_entries")).toBeGreaterThan(0);
    expect(value(after, "linkhop_metrics_source_up", { source: "webhook_oldest_due" })).toBe(1);
    expect(value(after, "linkhop_webhook_oldest_due_seconds")).toBe(0);
    expect(Number.isFinite(value(after, "linkhop_analytics_rollup_lag_days"))).toBe(true);
    expect(value(after, "process_cpu_user_seconds_total")).toBeGreaterThan(0);

    // three clicks, whatever the operations endpoints were asked meanwhile
    await eventually(async () => (await clicksOf(link.id)).clicks >= 3, 10_000, "the clicks to be written");
    expect(await clicksOf(link.id)).toEqual({ clicks: 3, events: 3 });
  });

  it("/metrics on the main port answers only to the bearer token; METRICS_PORT serves it without one", async () => {
    expect((await call(env.app, "GET", "/metrics")).status).toBe(401);
    const wrong = await call(env.app, "GET", "/metrics", { authorization: `Bearer ${TOKEN}x` });
    expect([wrong.status, wrong.headers["www-authenticate"]]).toEqual([401, 'Bearer realm="metrics"']);
    expect((await call(env.app, "GET", "/metrics", { authorization: `Basic ${TOKEN}` })).status).toBe(401);

    const own = await call({ port: metricsPort }, "GET", "/metrics");
    expect(own.status).toBe(200);
    expect(parsePrometheusTextFormat(own.text).map((f) => f.name)).toContain("linkhop_redirects_total");
    expect((await call({ port: metricsPort }, "GET", "/healthz")).status).toBe(404);
  });

  it("healthz, readyz and metrics are never links: not as aliases, and not even where a row has such a code", async () => {
    const { workspace, key } = await makeWorkspace("team");
    for (const alias of ["healthz", "readyz", "metrics"]) {
      const refused = await call(env.app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/", alias } });
      expect([refused.status, refused.body.error]).toEqual([409, "alias_taken"]);
    }
    // rows with those codes (as if made before the names were reserved), on the default and a custom domain
    const domain = await makeDomain(workspace.id, "ops.brand.example");
    const rows = [];
    for (const code of ["healthz", "readyz", "metrics"]) {
      rows.push(await createLink(workspace.id, { code }));
      rows.push(await createLink(workspace.id, { code, domainId: domain.id }));
    }
    // the app serves the custom domain (it learns of it by NOTIFY): a code there redirects
    await createLink(workspace.id, { code: "ops-custom", domainId: domain.id });
    await eventually(async () => (await request(env.app.port, "ops.brand.example", "/ops-custom")).status === 302, 10_000, "the domain");
    const before = await scrape();
    for (const host of [TEST_SHORT_DOMAIN, "ops.brand.example"]) {
      expect(await request(env.app.port, host, "/healthz")).toMatchObject({ status: 200, body: "ok\n" });
      expect(await request(env.app.port, host, "/readyz")).toMatchObject({ status: 200, body: "ready\n" });
      expect((await request(env.app.port, host, "/metrics")).status).toBe(401);
    }
    const after = await scrape();
    expect(value(after, "linkhop_redirects_total") - value(before, "linkhop_redirects_total")).toBe(0);
    // a redirect of another link, written after the requests above: its click shows they counted none
    const marker = await createLink(workspace.id, { code: "ops-marker" });
    expect((await request(env.app.port, TEST_SHORT_DOMAIN, "/ops-marker")).status).toBe(302);
    await eventually(async () => (await clicksOf(marker.id)).clicks === 1, 10_000, "the marker click");
    for (const row of rows) expect(await clicksOf(row.id)).toEqual({ clicks: 0, events: 0 });
  });
});
