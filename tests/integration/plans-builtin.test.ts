import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app.ts";
import { client, makeWorkspace, midMonth } from "../support/api.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The running app with its built-in plan table (no PLANS_FILE, unlike every other API test): each
// row of the Plans table of docs/configuration.md, read back through the API and the services. And a bad
// PLANS_FILE stops the start with a message.

const DOCUMENTED_PLANS = {
  free: { rateLimit: 30, liveKeys: 1, maxLinks: 500, webhookEndpoints: 0, aliases: false, bulk: false, retentionDays: 30 },
  pro: { rateLimit: 120, liveKeys: 3, maxLinks: 5000, webhookEndpoints: 0, aliases: true, bulk: false, retentionDays: 365 },
  team: { rateLimit: 600, liveKeys: 10, maxLinks: 50000, webhookEndpoints: 10, aliases: true, bulk: true, retentionDays: 730 },
  business: { rateLimit: 3000, liveKeys: 25, maxLinks: 500000, webhookEndpoints: 25, aliases: true, bulk: true, retentionDays: 1095 },
};
const CLOCK = midMonth();
const MONTH = CLOCK.slice(0, 7);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let db: typeof import("../../lib/db/client.ts").db;

beforeAll(async () => {
  database = await createTestDatabase();
  delete process.env.PLANS_FILE;
  process.env.WEBHOOK_ALLOW_PRIVATE = "1"; // endpoints on loopback for the endpoint limit below
  const { resetPlans } = await import("../../lib/plans/index.ts");
  const { resetConfig } = await import("../../lib/config/index.ts");
  resetPlans();
  resetConfig();
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  app = await startApp(database.url, { PLANS_FILE: undefined, LINKHOP_CLOCK_START: CLOCK });
});
afterAll(async () => {
  await app?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("the built-in plans, as docs/configuration.md's table gives them", () => {
  for (const [plan, row] of Object.entries(DOCUMENTED_PLANS)) {
    it(`${plan}: ${row.rateLimit} requests per window, ${row.maxLinks} links a month, ${row.liveKeys} live keys, ${row.webhookEndpoints} endpoints, ${row.retentionDays} days of analytics`, async () => {
      const { workspace, key } = await makeWorkspace(plan);
      const api = client(app, key);

      const list = await api.get("/api/v1/links");
      expect(list.status).toBe(200);
      expect(list.headers["x-ratelimit-limit"]).toBe(String(row.rateLimit));

      // analytics retention: "all" reaches back exactly as far as the plan keeps clicks (the
      // retention job deletes by the same number, lib/plans analyticsRetentionDays)
      const all = await api.get("/api/v1/analytics?interval=all");
      expect(all.status).toBe(200);
      expect((Date.parse(all.body.end) - Date.parse(all.body.start)) / 86_400_000).toBe(row.retentionDays);

      // the monthly allowance: used up but one, one more create, then the quota answer names the limit
      await db().monthlyUsage.create({ data: { workspaceId: workspace.id, month: MONTH, created: row.maxLinks - 1 } });
      expect((await api.post("/api/v1/links", { url: "https://example.com/last" })).status).toBe(201);
      const over = await api.post("/api/v1/links", { url: "https://example.com/over" });
      expect(over.status).toBe(403);
      expect(over.body).toEqual({ error: "quota", key: "MaxLinks", limit: row.maxLinks, current: row.maxLinks, upgrade: true });

      // features: aliases and bulk answer with the feature error when the plan lacks them (the
      // allowance is used up, and the feature check comes first)
      const alias = await api.post("/api/v1/links", { url: "https://example.com/a", alias: `alias-${plan}` });
      if (row.aliases) expect(alias.body).toMatchObject({ error: "quota" });
      else expect(alias.body).toEqual({ error: "feature", key: "CustomAliases", upgrade: true });
      const bulk = await api.post("/api/v1/links/bulk", { links: [{ url: "https://example.com/b" }] });
      if (row.bulk) expect(bulk.body).not.toMatchObject({ error: "feature" });
      else expect(bulk.body).toEqual({ error: "feature", key: "BulkLinks", upgrade: true });

      // live keys: makeWorkspace made one; up to the limit more can be made, then no more
      const { createApiKey } = await import("../../lib/keys/index.ts");
      for (let i = 1; i < row.liveKeys; i++) await createApiKey(workspace, { name: `key ${i + 1}` });
      await expect(createApiKey(workspace, { name: "one too many" })).rejects.toMatchObject({ code: "limit" });

      // webhook endpoints: the last one allowed, then a refusal (none at all without Webhooks)
      const { createEndpoint } = await import("../../lib/webhooks/index.ts");
      if (row.webhookEndpoints > 0) {
        await db().webhookEndpoint.createMany({
          data: Array.from({ length: row.webhookEndpoints - 1 }, (_, i) => ({
            workspaceId: workspace.id,
            url: `https://127.0.0.1:9/e${i}`,
            secret: "s".repeat(32),
          })),
        });
        await createEndpoint(workspace.id, { url: "https://127.0.0.1:9/last" });
      }
      await expect(createEndpoint(workspace.id, { url: "https://127.0.0.1:9/over" })).rejects.toHaveProperty("code");
      expect(await db().webhookEndpoint.count({ where: { workspaceId: workspace.id } })).toBe(row.webhookEndpoints);
    });
  }
});

describe("a bad PLANS_FILE", () => {
  it.each([
    ["a missing file", "/nonexistent/linkhop-plans.json"],
    ["a file that is not a plan table", "package.json"],
  ])("%s stops the start with one line naming PLANS_FILE", async (_what, file) => {
    const started = startApp(database.url, { PLANS_FILE: file });
    const error = await started.then(
      async (a) => {
        await a.stop();
        return null;
      },
      (e: Error) => e.message,
    );
    expect(error, "the app must not start").not.toBeNull();
    expect(error).toMatch(/exited with 1 before it was ready/);
    const output = error!.slice(error!.indexOf("\n") + 1);
    const line = output.split("\n").find((l) => l.includes("PLANS_FILE"));
    expect(line).toContain(file);
    expect(output).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});
