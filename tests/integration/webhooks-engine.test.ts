import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { countStatements, emitEvent, eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// The built-in scheduler's claims (lib/webhooks/scheduler.ts) with the scheduler in this process
// and a real HTTPS receiver: one endpoint's older backlog, claimed up to that endpoint's room, must
// not hide a later due delivery of another endpoint until the backlog's first answers come back.
// Then what a paced backlog costs in statements: one read per claim (not per attempt), delivered
// results written together (attempt-batches.ts RECORD_SPACING_MS), and a burst of wake-ups while a
// request is out claiming at most once per WAKE_SPACING_MS (an idle scheduler claims at once:
// tests/unit/webhooks-wake-delay.test.ts).

const SLOW_MS = 3000;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;
let scheduler: import("../../lib/webhooks/scheduler.ts").Scheduler | undefined;
const answeredSlowAt: number[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver({
    respond: async (req) => {
      if (req.path !== "/slow") return { status: 200 };
      await new Promise((r) => setTimeout(r, SLOW_MS));
      answeredSlowAt.push(Date.now());
      return { status: 200 };
    },
  });
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_MS: "10000", INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined });
  await useDatabaseInProcess(database.url);
});

afterAll(async () => {
  await scheduler?.stop();
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("the built-in scheduler's claims", () => {
  it("a later delivery of another endpoint is not held behind an endpoint whose backlog filled its room", async () => {
    const webhooks = await import("../../lib/webhooks/index.ts");
    const { db } = await import("../../lib/db/client.ts");
    const busy = await newWorkspace("business");
    const calm = await newWorkspace("business");
    const slow = await webhooks.createEndpoint(busy.id, { url: receiver.url("127.0.0.1", "/slow") });
    await webhooks.createEndpoint(calm.id, { url: receiver.url("127.0.0.1", "/calm") });
    // no scheduler runs yet: the rows wait, due in this order (the backlog first). The backlog is
    // larger than the process's places (maxInFlight) by a queue's worth: claimed in due order
    // without the endpoint's room, it would take them all, and the calm delivery would wait for
    // the backlog's first answers.
    const { SCHEDULER_DEFAULTS } = await import("../../lib/webhooks/scheduler.ts");
    const backlog = SCHEDULER_DEFAULTS.maxInFlight + SCHEDULER_DEFAULTS.queuedPerEndpoint;
    for (let i = 0; i < backlog; i++) await emitEvent(busy);
    const { deliveryIds } = await emitEvent(calm);
    await db().delivery.updateMany({ where: { endpointId: slow.id }, data: { nextAttemptAt: new Date(Date.now() - 10_000) } });
    await db().delivery.updateMany({ where: { id: deliveryIds[0] }, data: { nextAttemptAt: new Date(Date.now() - 5_000) } });

    // polling rarely, so only the claims made on start and as attempts end can pick it up
    scheduler = webhooks.startBuiltInScheduler({ pollMs: 60_000 });
    const calmRequest = await eventually(async () => receiver.requests.find((r) => r.path === "/calm"), 2 * SLOW_MS, "the calm delivery");
    // the calm endpoint did not wait for any of the backlog's answers ...
    expect(answeredSlowAt).toEqual([]);
    // ... while the backlog, claimed with it, had all its 8 turns out at once (each on its own
    // connection: which TLS handshake ends first decides whether the calm request arrives before
    // the last of them, so their order is not asserted)
    const slowRequests = await eventually(
      async () => {
        const slow = receiver.requests.filter((r) => r.path === "/slow");
        return slow.length >= 8 ? slow : undefined;
      },
      SLOW_MS,
      "the backlog's 8 turns",
    );
    expect(slowRequests[7].at).toBeLessThan(slowRequests[0].at + SLOW_MS);
    expect(calmRequest.at).toBeLessThan(slowRequests[0].at + SLOW_MS);
  }, 60_000);

  it("a paced backlog reads each claim's rows once and records delivered results together", async () => {
    const webhooks = await import("../../lib/webhooks/index.ts");
    const { database } = await import("../../lib/db/client.ts");
    await scheduler?.stop();
    scheduler = undefined;
    const ws = await newWorkspace("business");
    await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/paced") });
    const deliveries = 60;
    for (let i = 0; i < deliveries; i++) await emitEvent(ws);

    const counted = countStatements(database().prismaPool);
    try {
      scheduler = webhooks.startBuiltInScheduler({ pollMs: 60_000 });
      await eventually(async () => receiver.requests.filter((r) => r.path === "/paced").length >= deliveries, 20_000, "every request");
      const { db } = await import("../../lib/db/client.ts");
      await eventually(
        async () => (await db().delivery.count({ where: { endpoint: { workspaceId: ws.id }, status: "delivered" } })) === deliveries,
        10_000,
        "every delivery recorded as delivered",
      );
      const claimsWithRows = counted.calls.filter((c) => c.name === "webhook_claim_due" && c.rows > 0).length;
      const reads = counted.calls.filter((c) => c.name === "webhook_sendable").length;
      const records = counted.calls.filter((c) => c.name === "webhook_record_delivered").length;
      // one read per claim that found rows; an attempt that starts more than PREFETCH_FRESH_MS after
      // its claim reads again (a few on a loaded machine), never one read per attempt
      expect(claimsWithRows).toBeGreaterThan(0);
      expect(reads).toBeGreaterThanOrEqual(claimsWithRows);
      expect(reads).toBeLessThanOrEqual(claimsWithRows + deliveries / 10);
      // written at most once per RECORD_SPACING_MS: 60 attempts paced 5 ms apart (200/s) end within
      // about 300 ms, so far fewer statements than attempts; on a loaded machine the attempts spread
      // over longer, and the bound with them (the receipts' span, plus the first and last statements)
      const { RECORD_SPACING_MS } = await import("../../lib/webhooks/attempt-batches.ts");
      const receipts = receiver.requests.filter((r) => r.path === "/paced").map((r) => r.at);
      const span = Math.max(...receipts) - Math.min(...receipts);
      expect(records).toBeLessThanOrEqual(Math.floor(span / RECORD_SPACING_MS) + 3);
      expect(records).toBeLessThan(deliveries);
    } finally {
      counted.restore();
    }
  }, 60_000);

  it("a burst of wake-ups while a request is out claims at most once per WAKE_SPACING_MS", async () => {
    const webhooks = await import("../../lib/webhooks/index.ts");
    const { WAKE_SPACING_MS } = await import("../../lib/webhooks/scheduler.ts");
    const { database } = await import("../../lib/db/client.ts");
    // a request out to the slow endpoint, answered after SLOW_MS: the scheduler is busy
    const busy = await newWorkspace("business");
    await webhooks.createEndpoint(busy.id, { url: receiver.url("127.0.0.1", "/slow") });
    const before = receiver.requests.length;
    await emitEvent(busy);
    const running = scheduler ?? (scheduler = webhooks.startBuiltInScheduler({ pollMs: 60_000 }));
    running.wake();
    await eventually(async () => receiver.requests.length > before, 10_000, "the slow request out");
    const counted = countStatements(database().prismaPool);
    try {
      const started = Date.now();
      // a hand-off after each of 100 creates, 2 ms apart
      for (let i = 0; i < 100; i++) {
        running.wake();
        await new Promise((r) => setTimeout(r, 2));
      }
      const elapsed = Date.now() - started;
      await new Promise((r) => setTimeout(r, WAKE_SPACING_MS * 2));
      const claims = counted.calls.filter((c) => c.name === "webhook_claim_due").length;
      expect(claims).toBeGreaterThan(0);
      expect(claims).toBeLessThanOrEqual(Math.ceil((elapsed + WAKE_SPACING_MS * 2) / WAKE_SPACING_MS) + 1);
    } finally {
      counted.restore();
    }
  }, 30_000);
});
