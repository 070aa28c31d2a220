import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { startApp, type RunningApp } from "./app.ts";
import { createTestDatabase, useDatabaseInProcess } from "./db.ts";

// Support for the API integration tests: one database and one app process per file, a plan table
// (PLANS_FILE) with small budgets, workspaces and keys made directly through the services (fast),
// and a small HTTP client that keeps status, headers and the raw body bytes.

export type TestPlan = {
  name: string;
  rateLimit: number | null;
  liveKeys: number;
  maxLinks: number;
  webhookEndpoints: number;
  features: string[];
};

const ALL = ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains", "BulkLinks", "Webhooks"];

/** Plans most API tests use; a file may add its own. */
export const TEST_PLANS: Record<string, TestPlan> = {
  free: { name: "Free", rateLimit: 30, liveKeys: 1, maxLinks: 500, webhookEndpoints: 0, features: ["ApiAccess"] },
  pro: {
    name: "Pro",
    rateLimit: 120,
    liveKeys: 3,
    maxLinks: 5000,
    webhookEndpoints: 0,
    features: ["ApiAccess", "CustomAliases", "LinkExpiry", "LinkPasswords", "CustomDomains"],
  },
  team: { name: "Team", rateLimit: 600, liveKeys: 10, maxLinks: 50000, webhookEndpoints: 10, features: ALL },
  // no rate limit: no X-RateLimit headers at all
  open: { name: "Open", rateLimit: null, liveKeys: 25, maxLinks: 1_000_000, webhookEndpoints: 25, features: ALL },
  noapi: { name: "No API", rateLimit: 30, liveKeys: 1, maxLinks: 500, webhookEndpoints: 0, features: ["CustomAliases"] },
  tiny: { name: "Tiny", rateLimit: 3, liveKeys: 2, maxLinks: 500, webhookEndpoints: 0, features: ALL },
  quota3: { name: "Quota 3", rateLimit: null, liveKeys: 5, maxLinks: 3, webhookEndpoints: 10, features: ALL },
};

export type ApiTestEnv = {
  app: RunningApp;
  apps: RunningApp[];
  databaseUrl: string;
  plansFile: string;
  stop: () => Promise<void>;
};

export const TEST_APP_URL = "http://localhost:3000";
export const TEST_SHORT_DOMAIN = "localhost:3000";

/**
 * A fresh database, a PLANS_FILE, this process's services pointed at the database, and `processes`
 * app processes (default 1) started against it with `env`.
 */
export async function startApiTest(
  opts: { plans?: Record<string, TestPlan>; env?: Record<string, string>; processes?: number } = {},
): Promise<ApiTestEnv> {
  const database = await createTestDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-api-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(plansFile, JSON.stringify({ plans: opts.plans ?? TEST_PLANS }));
  const env = {
    PLANS_FILE: plansFile,
    APP_URL: TEST_APP_URL,
    DESTINATION_DENYLIST: "blocked.example,evil.test",
    // The app's calendar clock (lib/clock.ts) starts mid-month, so no test's creates straddle a
    // real month end and split its allowance over two months.
    LINKHOP_CLOCK_START: midMonth(),
    ...opts.env,
  };
  // The test process calls services directly (to make workspaces and keys): same config as the app.
  Object.assign(process.env, env);
  const { resetPlans } = await import("../../lib/plans/index.ts");
  const { resetConfig } = await import("../../lib/config/index.ts");
  resetPlans();
  resetConfig();
  await useDatabaseInProcess(database.url);
  const apps = await Promise.all(Array.from({ length: opts.processes ?? 1 }, () => startApp(database.url, env)));
  return {
    app: apps[0],
    apps,
    databaseUrl: database.url,
    plansFile,
    stop: async () => {
      await Promise.all(apps.map((a) => a.stop()));
      const { disconnectDb } = await import("../../lib/db/client.ts");
      await disconnectDb();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** 12:00 UTC on the 15th of the current month. */
export function midMonth(at = new Date()): string {
  return `${at.toISOString().slice(0, 7)}-15T12:00:00.000Z`;
}

let counter = 0;

/** A user, a workspace on `plan` owned by them, and (unless keys: 0) live API keys. */
export async function makeWorkspace(plan: string, opts: { keys?: number; active?: boolean } = {}) {
  const { db } = await import("../../lib/db/client.ts");
  const { createApiKey } = await import("../../lib/keys/index.ts");
  const n = ++counter;
  const slug = `api-${process.pid}-${n}-${Math.random().toString(36).slice(2, 7)}`;
  const user = await db().user.create({ data: { email: `${slug}@example.test` } });
  const workspace = await db().workspace.create({ data: { slug, name: `API ${n}`, plan, active: opts.active ?? true } });
  await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "owner" } });
  const keys: { id: number; key: string }[] = [];
  for (let i = 0; i < (opts.keys ?? 1); i++) {
    const k = await createApiKey(workspace, { name: `key ${i + 1}` });
    keys.push({ id: k.id, key: k.key });
  }
  return { workspace, user, keys, key: keys[0]?.key };
}

/** A custom domain of a workspace (verified and active unless told otherwise). */
export async function makeDomain(workspaceId: number, host: string, opts: { verified?: boolean; active?: boolean } = {}) {
  const { db } = await import("../../lib/db/client.ts");
  return db().domain.create({
    data: {
      workspaceId,
      host,
      txtToken: "token-" + host,
      verifiedAt: opts.verified === false ? null : new Date(),
      verifiedHost: opts.verified === false ? null : host,
      active: opts.active ?? true,
    },
  });
}

export type Answer = {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** the exact response bytes as text */
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export type RequestOptions = {
  key?: string | null;
  /** raw Authorization header (overrides key) */
  authorization?: string;
  json?: unknown;
  /** raw body (string or bytes); Content-Type application/json unless contentType says otherwise */
  body?: string | Buffer;
  contentType?: string | null;
  headers?: Record<string, string>;
};

/** One HTTP request to the app (node:http: exact bytes, any header, no fetch normalisation). */
export function call(app: { port: number }, method: string, pathAndQuery: string, o: RequestOptions = {}): Promise<Answer> {
  const payload = o.json !== undefined ? JSON.stringify(o.json) : o.body;
  const headers: Record<string, string | number> = { ...o.headers };
  if (o.authorization !== undefined) headers.authorization = o.authorization;
  else if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (payload !== undefined) {
    const ct = o.contentType === undefined ? "application/json" : o.contentType;
    if (ct !== null) headers["content-type"] = ct;
    headers["content-length"] = Buffer.byteLength(payload);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: app.port, path: pathAndQuery, method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = undefined;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** A client bound to one app and one key. */
export function client(app: { port: number }, key: string | null) {
  return {
    get: (p: string, o: RequestOptions = {}) => call(app, "GET", p, { key, ...o }),
    post: (p: string, json?: unknown, o: RequestOptions = {}) => call(app, "POST", p, { key, json, ...o }),
    patch: (p: string, json?: unknown, o: RequestOptions = {}) => call(app, "PATCH", p, { key, json, ...o }),
    delete: (p: string, o: RequestOptions = {}) => call(app, "DELETE", p, { key, ...o }),
    call: (method: string, p: string, o: RequestOptions = {}) => call(app, method, p, { key, ...o }),
  };
}

export function rateHeaders(a: Answer): { limit?: string; remaining?: string } {
  return {
    limit: a.headers["x-ratelimit-limit"] as string | undefined,
    remaining: a.headers["x-ratelimit-remaining"] as string | undefined,
  };
}

/** Runs `fn` for every item with at most `concurrency` in flight; results in item order. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}
