import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { call, makeDomain, makeWorkspace, midMonth, TEST_APP_URL, TEST_PLANS, type Answer } from "../support/api.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { statementRelay, type StatementRelay } from "../support/pg-statements.ts";

// POST /api/v1/links on a plan with a rate: the request is counted in the create's own statement
// (lib/links/create-sql.ts with lib/ratelimit liveKeyRateCte; create-plan.ts says when), through
// the real app on real PostgreSQL. Over the limit nothing is written; a refusal rolls the count
// back with the rest and the request is then counted on its own, so every request is counted once;
// a body that does not parse is counted on its own and answered 400; a key the cache still holds
// but the database no longer does writes nothing. The app reaches PostgreSQL through a relay that
// notes its statements (tests/support/pg-statements.ts), to see the round trips of one create.

const ALL = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "BulkLinks", "Webhooks"];
const PLANS = {
  ...TEST_PLANS,
  // a small rate, webhooks in the plan (an endpoint makes every create write an event and a delivery)
  hooks3: { name: "Hooks 3", rateLimit: 3, liveKeys: 2, maxLinks: 500, webhookEndpoints: 5, features: ALL },
  // a large rate, a small allowance
  allow2: { name: "Allow 2", rateLimit: 100, liveKeys: 2, maxLinks: 2, webhookEndpoints: 5, features: ALL },
};

let app: RunningApp;
let relay: StatementRelay;
let databaseUrl: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  databaseUrl = database.url;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-create-counted-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(plansFile, JSON.stringify({ plans: PLANS }));
  const env = {
    PLANS_FILE: plansFile,
    APP_URL: TEST_APP_URL,
    DESTINATION_DENYLIST: "blocked.example",
    LINKHOP_CLOCK_START: midMonth(),
  };
  Object.assign(process.env, env);
  const { resetPlans } = await import("../../lib/plans/index.ts");
  const { resetConfig } = await import("../../lib/config/index.ts");
  resetPlans();
  resetConfig();
  await useDatabaseInProcess(database.url);
  relay = await statementRelay(new URL(database.url));
  app = await startApp(relay.url, env);
  stop = async () => {
    await app.stop();
    await relay.close();
    const { disconnectDb } = await import("../../lib/db/client.ts");
    await disconnectDb();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}, 120_000);
afterAll(async () => {
  await stop?.();
});

const create = (key: string, json: unknown) => call(app, "POST", "/api/v1/links", { key, json });
const remaining = (a: Answer) => a.headers["x-ratelimit-remaining"];

/** Everything a create writes, in one workspace, and its key's count. */
async function written(workspaceId: number, keyId: number) {
  const [links, tags, linkTags, usage, events, deliveries, window] = await Promise.all([
    db().link.count({ where: { workspaceId } }),
    db().tag.count({ where: { workspaceId } }),
    db().linkTag.count({ where: { link: { workspaceId } } }),
    db().monthlyUsage.findMany({ where: { workspaceId }, select: { created: true } }),
    db().webhookEvent.count({ where: { workspaceId } }),
    db().delivery.count({ where: { event: { workspaceId } } }),
    db().rateWindow.findUnique({ where: { keyId } }),
  ]);
  return { links, tags, linkTags, allowance: usage.reduce((n, u) => n + u.created, 0), events, deliveries, count: window?.count ?? 0 };
}

async function workspaceWithEndpoint(plan: string) {
  const w = await makeWorkspace(plan);
  await db().webhookEndpoint.create({
    data: { workspaceId: w.workspace.id, url: "https://hooks.invalid/linkhop", secret: "whsec_" + "x".repeat(48), allEvents: true },
  });
  return { id: w.workspace.id, keyId: w.keys[0].id, key: w.key! };
}

/** Quietly (no notification: the app's key cache keeps what it holds) runs `sql` with `id`. */
async function quietly(sql: string, id: number) {
  const quiet = new pg.Client({ connectionString: databaseUrl });
  await quiet.connect();
  try {
    await quiet.query(`set session_replication_role = replica`);
    await quiet.query(sql, [id]);
  } finally {
    await quiet.end();
  }
}

describe("a create counted in its own statement", () => {
  it("runs one statement for the count and the create, link, tags, allowance and event in it", async () => {
    const w = await workspaceWithEndpoint("hooks3");
    const from = relay.statements().length;
    const a = await create(w.key, { url: "https://example.com/one", tags: ["Spring"] });
    expect(a.status).toBe(201);
    expect(remaining(a)).toBe("2");
    // the statements that write what a create writes (the delivery handed off afterwards is the sender's)
    const writes = relay
      .statements()
      .slice(from)
      .filter((s) => /insert into "(RateWindow|Link|MonthlyUsage|Tag|LinkTag|WebhookEvent|Delivery)"/i.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/"RateWindow"/);
    expect(writes[0]).toMatch(/insert into "Link"/);
    expect(await written(w.id, w.keyId)).toMatchObject({
      links: 1,
      tags: 1,
      linkTags: 1,
      allowance: 1,
      events: 1,
      deliveries: 1,
      count: 1,
    });
  });

  it("with a password: one pre-check statement counts the request and reads, then one statement creates", async () => {
    const w = await workspaceWithEndpoint("hooks3");
    const from = relay.statements().length;
    const a = await create(w.key, { url: "https://example.com/locked", password: "secret-12", alias: "locked" });
    expect(a.status).toBe(201);
    expect(remaining(a)).toBe("2");
    // the statements that count, read or write what a create checks (the old path took four: the count, the
    // verified domains, the allowance used, the create)
    const mine = relay
      .statements()
      .slice(from)
      .filter((s) => /"RateWindow"|"MonthlyUsage"|"verifiedAt"/.test(s));
    expect(mine).toHaveLength(2);
    const [pre, made] = mine;
    expect(pre).toMatch(/insert into "RateWindow"/i);
    expect(pre).not.toMatch(/insert into "(Link|MonthlyUsage|WebhookEvent|Delivery)"/i);
    expect(made).toMatch(/insert into "Link"/i);
    expect(made).not.toMatch(/"RateWindow"/);
    expect(await written(w.id, w.keyId)).toMatchObject({ links: 1, allowance: 1, events: 1, deliveries: 1, count: 1 });
  });

  it("answers 429 with the rate headers over the limit and writes nothing: no link, tag, allowance, event or delivery", async () => {
    const w = await workspaceWithEndpoint("hooks3");
    for (const n of ["2", "1", "0"]) {
      const a = await create(w.key, { url: "https://example.com/ok", tags: ["kept"] });
      expect(a.status).toBe(201);
      expect(remaining(a)).toBe(n);
    }
    const before = await written(w.id, w.keyId);
    expect(before).toEqual({ links: 3, tags: 1, linkTags: 3, allowance: 3, events: 3, deliveries: 3, count: 3 });
    for (let i = 0; i < 2; i++) {
      const a = await create(w.key, { url: "https://example.com/late", alias: `late-${i}`, tags: ["never"] });
      expect(a.status).toBe(429);
      expect(a.body).toEqual({ error: "rate_limit", limit: 3 });
      expect(a.headers["x-ratelimit-limit"]).toBe("3");
      expect(remaining(a)).toBe("0");
    }
    expect(await written(w.id, w.keyId)).toEqual({ ...before, count: 4 });
    expect(await db().link.count({ where: { workspaceId: w.id, code: { startsWith: "late-" } } })).toBe(0);
  });

  it("creates exactly the limit's links from parallel requests and answers the rest 429, writing nothing for them", async () => {
    const w = await workspaceWithEndpoint("hooks3");
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => create(w.key, { url: `https://example.com/p${i}`, tags: [`t${i % 2}`] })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(3).fill(201), ...Array(9).fill(429)]);
    const after = await written(w.id, w.keyId);
    expect(after).toMatchObject({ links: 3, linkTags: 3, allowance: 3, events: 3, deliveries: 3, count: 4 });
    expect(after.tags).toBeLessThanOrEqual(2);
  });
});

describe("every request counted exactly once", () => {
  it("counts each refused create once: taken alias, verified-domain destination, denylisted destination, quota, bad body", async () => {
    const w = await workspaceWithEndpoint("allow2");
    const other = await makeWorkspace("team");
    const host = `go-${w.id}.counted.test`;
    await makeDomain(other.workspace.id, host);
    const steps: [string, unknown, number][] = [
      ["created", { url: "https://example.com/a", alias: "mine" }, 201],
      ["taken alias (refused in the statement)", { url: "https://example.com/b", alias: "mine" }, 409],
      ["a verified custom domain as destination (refused in the statement)", { url: `https://${host}/x` }, 400],
      ["a denylisted destination (refused before the statement)", { url: "https://blocked.example/x" }, 400],
      ["a password (counted in its pre-check, before the hash)", { url: "https://example.com/c", password: "secret-12" }, 201],
      ["the allowance spent (refused in the statement)", { url: "https://example.com/d", tags: ["none"] }, 403],
      ["a body that does not parse", { url: 42 }, 400],
    ];
    let left = 100;
    for (const [what, json, status] of steps) {
      const a = await create(w.key, json);
      expect(a.status, what).toBe(status);
      expect(remaining(a), what).toBe(String(--left));
    }
    const bad = await call(app, "POST", "/api/v1/links", { key: w.key, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(remaining(bad)).toBe(String(--left));
    expect(await written(w.id, w.keyId)).toEqual({ links: 2, tags: 0, linkTags: 0, allowance: 2, events: 2, deliveries: 2, count: 8 });
  });

  it("answers 429, not the refusal, once the budget is spent: a bad body, a taken alias, a refused destination", async () => {
    const w = await workspaceWithEndpoint("hooks3");
    expect((await create(w.key, { url: "https://example.com/a", alias: "held" })).status).toBe(201);
    expect((await create(w.key, { url: "https://blocked.example/" })).status).toBe(400);
    expect((await create(w.key, { url: 7 })).status).toBe(400);
    const before = await written(w.id, w.keyId);
    for (const json of [
      { url: 7 },
      { url: "https://example.com/b", alias: "held" },
      { url: "https://blocked.example/" },
      { url: "https://example.com/c" },
    ]) {
      const a = await create(w.key, json);
      expect(a.status, JSON.stringify(json)).toBe(429);
      expect(remaining(a)).toBe("0");
    }
    expect(await written(w.id, w.keyId)).toEqual({ ...before, count: 4 });
  });
});

describe("a key the cache holds but the database no longer does", () => {
  it("writes nothing and answers 401 for a key revoked without notification", async () => {
    const w = await workspaceWithEndpoint("team");
    expect((await create(w.key, { url: "https://example.com/warm" })).status).toBe(201);
    await quietly(`update "ApiKey" set "revokedAt" = now() where id = $1`, w.keyId);
    const before = await written(w.id, w.keyId);
    const a = await create(w.key, { url: "https://example.com/revoked", tags: ["never"] });
    expect(a.status).toBe(401);
    expect(a.text).toBe('{"error":"unauthorized"}');
    expect(a.headers["x-ratelimit-limit"]).toBeUndefined();
    expect(await written(w.id, w.keyId)).toEqual(before);
  });

  it("creates once, under the new plan's limit, for a workspace moved to another plan without notification", async () => {
    const w = await workspaceWithEndpoint("team");
    expect((await create(w.key, { url: "https://example.com/warm" })).status).toBe(201);
    await quietly(`update "Workspace" set plan = 'pro' where id = $1`, w.id);
    const a = await create(w.key, { url: "https://example.com/moved" });
    expect(a.status).toBe(201);
    expect(a.headers["x-ratelimit-limit"]).toBe("120");
    expect(remaining(a)).toBe("118");
    expect(await written(w.id, w.keyId)).toMatchObject({ links: 2, allowance: 2, count: 2 });
  });
});
