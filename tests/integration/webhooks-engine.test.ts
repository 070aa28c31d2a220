import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { emitEvent, eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// The built-in scheduler's claims (lib/webhooks/scheduler.ts) with the scheduler in this process
// and a real HTTPS receiver: one endpoint's older backlog, claimed up to that endpoint's room, must
// not hide a later due delivery of another endpoint until the backlog's first answers come back.

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
    // no scheduler runs yet: the rows wait, due in this order (the backlog first)
    for (let i = 0; i < 60; i++) await emitEvent(busy);
    const { deliveryIds } = await emitEvent(calm);
    await db().delivery.updateMany({ where: { endpointId: slow.id }, data: { nextAttemptAt: new Date(Date.now() - 10_000) } });
    await db().delivery.updateMany({ where: { id: deliveryIds[0] }, data: { nextAttemptAt: new Date(Date.now() - 5_000) } });

    // polling rarely, so only the claims made on start and as attempts end can pick it up
    scheduler = webhooks.startBuiltInScheduler({ pollMs: 60_000 });
    const calmRequest = await eventually(async () => receiver.requests.find((r) => r.path === "/calm"), 2 * SLOW_MS, "the calm delivery");
    const slowRequests = receiver.requests.filter((r) => r.path === "/slow");
    // the backlog was claimed and sent first (its 8 turns), yet the calm endpoint did not wait for any of its answers
    expect(slowRequests.length).toBeGreaterThanOrEqual(8);
    expect(answeredSlowAt).toEqual([]);
    expect(calmRequest.at).toBeLessThan(slowRequests[0].at + SLOW_MS);
  }, 60_000);
});
