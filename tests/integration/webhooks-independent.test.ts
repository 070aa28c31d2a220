// Events are delivered independently: on one endpoint, an event whose attempts fail waits for its
// retries (the default schedule: 1 minute, then 5, 30, 2 hours...) without holding back the others,
// which go out at once. The real app with its built-in scheduler, a real HTTPS receiver on loopback.
// Also: an app started with WEBHOOK_ALLOW_PRIVATE says so in a warning as it starts.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app.ts";
import { nodeFlags, serverEntry } from "../support/compiled.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { attemptsOf, emitEvent, eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";
import { renderLogs } from "../support/logs.ts";

const root = path.resolve(import.meta.dirname, "../..");
const ALLOW_PRIVATE_WARNING =
  "[linkhop] WARNING: WEBHOOK_ALLOW_PRIVATE=1: webhooks may target http, any port and private addresses. Never use this in production.";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
const receivers: Receiver[] = [];
let db: typeof import("../../lib/db/client.ts").db;
let webhooks: typeof import("../../lib/webhooks/index.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  // The default retry schedule (WEBHOOK_RETRY_DELAYS unset): a failed attempt waits a minute at least.
  const env = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: undefined, WEBHOOK_TIMEOUT_MS: "5000" };
  useEnv({ ...env, DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  webhooks = await import("../../lib/webhooks/index.ts");
  app = await startApp(database.url, env);
});

afterAll(async () => {
  await app?.stop();
  await Promise.all(receivers.map((r) => r.stop()));
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

/** An endpoint on a receiver of its own that fails (500) every event whose data says fail. */
async function endpointFailingMarkedEvents() {
  const receiver = await startHttpsReceiver({
    respond: (req) => (JSON.parse(req.raw.toString("utf8")).data.fail ? { status: 500, body: "no" } : { status: 200 }),
  });
  receivers.push(receiver);
  const ws = await newWorkspace("team");
  await webhooks.createEndpoint(ws.id, { url: receiver.url() });
  return { ws, receiver };
}

const delivery = (id: number) => db().delivery.findUniqueOrThrow({ where: { id } });

describe("deliveries of one endpoint are independent", () => {
  it("an event in its retries does not hold back a later one", async () => {
    const { ws, receiver } = await endpointFailingMarkedEvents();
    const failing = await emitEvent(ws, "member.joined", { fail: true });
    const failed = await eventually(async () => {
      const d = await delivery(failing.deliveryIds[0]);
      return d.attempts === 1 ? d : null;
    });
    // Its next attempt is a minute away at least.
    const [first] = await attemptsOf(failing.deliveryIds[0]);
    expect(failed).toMatchObject({ status: "pending" });
    expect(failed.nextAttemptAt!.getTime() - first.startedAt.getTime()).toBeGreaterThanOrEqual(60_000);

    const healthy = await emitEvent(ws, "member.joined", { fail: false });
    const done = await eventually(
      async () => {
        const d = await delivery(healthy.deliveryIds[0]);
        return d.status === "delivered" ? d : null;
      },
      20_000,
      "the healthy event to be delivered while the failing one waits",
    );
    expect(done.attempts).toBe(1);
    // sent before the failing event's next attempt was even due
    const [healthyAttempt] = await attemptsOf(healthy.deliveryIds[0]);
    expect(healthyAttempt.startedAt.getTime()).toBeLessThan(failed.nextAttemptAt!.getTime());
    // The failing event still waits for its retry: one attempt so far, nothing else was sent.
    expect(await delivery(failing.deliveryIds[0])).toMatchObject({ status: "pending", attempts: 1 });
    expect(receiver.requests.map((q) => q.headers["service-delivery"])).toEqual([failing.event!.id, healthy.event!.id]);
  });

  it("events emitted together, one failing: the others are delivered, the failing one alone retries", async () => {
    const { ws, receiver } = await endpointFailingMarkedEvents();
    const { withEvents } = await import("../../lib/events/index.ts");
    // One transaction, the failing event first: the healthy ones come after it in every order.
    await withEvents(async (_tx, emit) => {
      await emit(ws, "member.joined", { fail: true });
      for (let i = 0; i < 3; i++) await emit(ws, "member.joined", { fail: false, i });
    });
    const rows = await db().delivery.findMany({
      where: { endpoint: { workspaceId: ws.id } },
      include: { event: true },
      orderBy: { id: "asc" },
    });
    expect(rows).toHaveLength(4);
    const [bad, ...good] = rows;
    expect(JSON.parse(bad.event.body).data.fail).toBe(true);
    await eventually(
      async () => (await db().delivery.count({ where: { id: { in: good.map((g) => g.id) }, status: "delivered" } })) === 3,
      20_000,
      "the three healthy events to be delivered",
    );
    const badNow = await delivery(bad.id);
    expect(badNow).toMatchObject({ status: "pending", attempts: 1 });
    expect(receiver.requests.filter((q) => q.headers["service-delivery"] === bad.event.id)).toHaveLength(1);
    expect(new Set(receiver.requests.map((q) => q.headers["service-delivery"]))).toEqual(new Set(rows.map((r) => r.event.id)));
    expect(receiver.requests).toHaveLength(4);
  });
});

describe("WEBHOOK_ALLOW_PRIVATE at start", () => {
  it("the running app logged the warning as it started, before it listened", () => {
    const logs = app.logs();
    const warned = logs.indexOf(ALLOW_PRIVATE_WARNING);
    expect(warned).toBeGreaterThanOrEqual(0);
    expect(warned).toBeLessThan(logs.indexOf("[linkhop] listening on"));
  });

  it("is a warning on stderr when set, and absent when not", async () => {
    // The server as `npm start` runs it, up to its first stop: a directory without a production
    // build ends the start right after the configuration is read (and the warning given), so no
    // database or Next is needed. Its JSON log lines are read as LOG_FORMAT=pretty prints them.
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-nobuild-"));
    const start = (extra: Record<string, string | undefined>) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const env: NodeJS.ProcessEnv = { ...process.env, NEXT_DIST_DIR: empty, LINKHOP_DATA_DIR: empty, ...extra };
        for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
        execFile(process.execPath, [...nodeFlags, serverEntry], { cwd: root, env }, (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: renderLogs(stdout), stderr: renderLogs(stderr) }),
        );
      });
    try {
      const on = await start({ WEBHOOK_ALLOW_PRIVATE: "1" });
      expect(on.stderr).toContain("no production build");
      expect(on.stderr).toContain(ALLOW_PRIVATE_WARNING);
      expect(on.stdout).not.toContain("WEBHOOK_ALLOW_PRIVATE");
      const off = await start({ WEBHOOK_ALLOW_PRIVATE: undefined });
      expect(off.stderr).toContain("no production build");
      expect(off.stderr + off.stdout).not.toContain("WEBHOOK_ALLOW_PRIVATE");
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
