// The running app's own background jobs, nothing called in-process: its built-in scheduler
// retries a failing endpoint until WEBHOOK_DISABLE_AFTER has passed, switches it off and emails
// the workspace's owner (real SMTP server on loopback); and its log pruning removes the delivery
// log older than 30 days (the first run comes a minute after the start).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";
import { emitEvent, eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

const DAY = 86_400_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let smtp: SmtpServer;
let receiver: Receiver;
let db: typeof import("../../lib/db/client.ts").db;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let old: { id: number };
let recent: { id: number };

beforeAll(async () => {
  database = await createTestDatabase();
  smtp = await startSmtpServer();
  receiver = await startHttpsReceiver({ respond: () => ({ status: 503, body: "down" }) });
  const env = {
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: "300ms,300ms,300ms,300ms,300ms,300ms",
    WEBHOOK_DISABLE_AFTER: "1s",
    WEBHOOK_TIMEOUT_MS: "3000",
    APP_URL: "https://links.example.test",
    MAIL_FROM: "Linkhop <no-reply@links.example.test>",
    SMTP_URL: smtp.url,
  };
  useEnv({ ...env, DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  webhooks = await import("../../lib/webhooks/index.ts");
  // Delivery log of 31 and 29 days ago, written before the app starts: its first pruning run (a
  // minute after the start) must find them whichever test runs first.
  {
    const ws = await newWorkspace("team");
    const ep = await db().webhookEndpoint.create({
      data: { workspaceId: ws.id, url: "https://127.0.0.1:9/old", secret: "s".repeat(32), enabled: false },
    });
    const logAt = async (ageDays: number, id: string) => {
      const at = new Date(Date.now() - ageDays * DAY);
      await db().webhookEvent.create({ data: { id, workspaceId: ws.id, type: "member.joined", createdAt: at, body: "{}" } });
      const d = await db().delivery.create({ data: { eventId: id, endpointId: ep.id, status: "failed", attempts: 1, createdAt: at } });
      return db().deliveryAttempt.create({
        data: { deliveryId: d.id, number: 1, startedAt: at, durationMs: 5, outcome: "http_status", statusCode: 500 },
      });
    };
    old = await logAt(31, "evt_prune_old");
    recent = await logAt(29, "evt_prune_recent");
  }
  app = await startApp(database.url, env);
});
afterAll(async () => {
  await app?.stop();
  await receiver?.stop();
  await smtp?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("the app's background jobs", () => {
  it("switch off an endpoint failing for WEBHOOK_DISABLE_AFTER and email the owner", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/always-down") });
    const { deliveryIds } = await emitEvent(ws);

    const mail = await smtp.waitFor((m) => m.to.includes(ws.ownerEmail), 60_000);
    expect(mail.from).toBe("no-reply@links.example.test");
    expect(mail.text).toContain(ep.url);
    expect(mail.text).toContain(`https://links.example.test/w/${ws.slug}/developers`);

    const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(row.enabled).toBe(false);
    expect(row.disabledReason).toMatch(/failing with nothing delivered since/);
    expect(row.disabledAt!.getTime() - row.failingSince!.getTime()).toBeGreaterThanOrEqual(1000);
    // the attempts were the scheduler's (automatic), and what was left of the retries is cancelled
    const attempts = await db().deliveryAttempt.findMany({ where: { deliveryId: deliveryIds[0] } });
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.every((a) => !a.manual && a.outcome === "http_status")).toBe(true);
    expect(await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } })).toMatchObject({
      status: "cancelled",
      nextAttemptAt: null,
    });
    expect(receiver.requests.filter((r) => r.path === "/always-down")).toHaveLength(attempts.length);
  }, 90_000);

  it("remove the delivery log older than 30 days and keep the rest", async () => {
    // The app's first pruning run comes a minute after it started.
    await eventually(
      async () => (await db().webhookEvent.count({ where: { id: "evt_prune_old" } })) === 0,
      100_000,
      "the old event pruned",
    );
    expect(await db().deliveryAttempt.count({ where: { id: old.id } })).toBe(0);
    expect(await db().webhookEvent.count({ where: { id: "evt_prune_recent" } })).toBe(1);
    expect(await db().deliveryAttempt.count({ where: { id: recent.id } })).toBe(1);
    expect(app.logs()).toMatch(/removed 1 events and 1 attempts older than 30 days/);
  }, 120_000);
});
