import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { AfterCommit } from "../../lib/events/index.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { countStatements, emitEvent, eventually, newWorkspace, sleep, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// The built-in scheduler's wake-ups for new deliveries (lib/webhooks/scheduler.ts wake): one whose
// endpoints this process already holds enough claims of makes no claim (the claim would skip them,
// walking their due backlog to do so); one naming an endpoint with room claims; and the rows left
// waiting are delivered once the endpoint's receiver answers again. A real HTTPS receiver holds the
// requests of one endpoint until the test lets them go. A single create hands its deliveries off
// with their endpoints, so its wake-up can be told apart.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;
let scheduler: import("../../lib/webhooks/scheduler.ts").Scheduler | undefined;
let letGo: () => void = () => {};
const held = new Promise<void>((resolve) => (letGo = resolve));

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver({
    respond: async (req) => {
      if (req.path === "/held") await held;
      return { status: 200 };
    },
  });
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_MS: "20000", INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined });
  await useDatabaseInProcess(database.url);
});

afterAll(async () => {
  letGo();
  await scheduler?.stop();
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("the built-in scheduler's wake-ups", () => {
  it("claim nothing for an endpoint whose room is full, claim for one with room, and the waiting rows are delivered later", async () => {
    const webhooks = await import("../../lib/webhooks/index.ts");
    const { SCHEDULER_DEFAULTS } = await import("../../lib/webhooks/scheduler.ts");
    const { database: pools, db } = await import("../../lib/db/client.ts");
    const busy = await newWorkspace("business");
    const calm = await newWorkspace("business");
    const slow = await webhooks.createEndpoint(busy.id, { url: receiver.url("127.0.0.1", "/held") });
    const quick = await webhooks.createEndpoint(calm.id, { url: receiver.url("127.0.0.1", "/quick") });
    // more than the endpoint's room in this process (its turns and its queue)
    const backlog = SCHEDULER_DEFAULTS.perEndpoint + SCHEDULER_DEFAULTS.queuedPerEndpoint + 10;
    for (let i = 0; i < backlog; i++) await emitEvent(busy);

    scheduler = webhooks.startBuiltInScheduler({ pollMs: 60_000 });
    const atReceiver = () => receiver.requests.filter((r) => r.path === "/held").length;
    await eventually(async () => atReceiver() >= SCHEDULER_DEFAULTS.perEndpoint, 15_000, "the endpoint's turns taken");

    const counted = countStatements(pools().prismaPool);
    const claims = () => counted.calls.filter((c) => c.name === "webhook_claim_due");
    try {
      // a hand-off after each of 50 creates for the full endpoint, 2 ms apart
      for (let i = 0; i < 50; i++) {
        scheduler.wake([slow.id]);
        await sleep(2);
      }
      // then one naming an endpoint with room too: it claims, and its delivery goes out
      await emitEvent(calm);
      scheduler.wake([slow.id, quick.id]);
      await eventually(async () => receiver.requests.some((r) => r.path === "/quick"), 10_000, "the other endpoint's delivery");
      // the first claim since the endpoint filled is the one that took the other's delivery: the 50
      // wake-ups made none (each would have found nothing but the full endpoint's rows, and skipped them)
      expect(claims().length).toBeGreaterThan(0);
      expect(claims()[0].rows).toBeGreaterThan(0);
    } finally {
      counted.restore();
    }
    // the full endpoint got no more than its turns while its receiver held them
    expect(atReceiver()).toBe(SCHEDULER_DEFAULTS.perEndpoint);

    letGo();
    await eventually(
      async () => (await db().delivery.count({ where: { endpointId: slow.id, status: "delivered" } })) === backlog,
      30_000,
      "the whole backlog delivered",
    );
  }, 90_000);

  it("a single create hands off its deliveries with the endpoint of each", async () => {
    const webhooks = await import("../../lib/webhooks/index.ts");
    const { setAfterCommit } = await import("../../lib/events/index.ts");
    const { createLink } = await import("../../lib/links/create.ts");
    const { db } = await import("../../lib/db/client.ts");
    const ws = await newWorkspace("business");
    const first = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/first") });
    const second = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/second") });
    const { peekShared } = await import("../../lib/registry.ts");
    const handedOff: { deliveryIds: number[]; endpointIds?: readonly number[] }[] = [];
    const before = peekShared<AfterCommit>("after-commit");
    setAfterCommit((deliveryIds, endpointIds) => handedOff.push({ deliveryIds, endpointIds }));
    try {
      await createLink(ws, { url: "https://example.com/handed-off" });
    } finally {
      setAfterCommit(before);
    }
    const rows = await db().delivery.findMany({ where: { endpoint: { workspaceId: ws.id } }, orderBy: { id: "asc" } });
    expect(rows.map((r) => r.endpointId).sort()).toEqual([first.id, second.id].sort());
    expect(handedOff).toEqual([{ deliveryIds: rows.map((r) => r.id), endpointIds: rows.map((r) => r.endpointId) }]);
  }, 30_000);
});
