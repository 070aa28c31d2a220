// Inngest mode. The function (inngest/functions/deliver-webhook.ts) runs under @inngest/test with
// the real attemptDelivery, a real database and a real receiver; only the Inngest server is faked:
// @inngest/test for running the function (every step.sleep mocked; a mocked sleep moves the
// clock forward so the next attempt is due), and a small HTTP server standing in for Inngest's
// event API for the hand-off and the sweep.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { InngestTestEngine } from "@inngest/test";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { attemptsOf, emitEvent, eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

const SCHEDULE = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const receivers: Receiver[] = [];
let inngestApi: http.Server;
/** The stand-in for Inngest's event API refuses the events of these endpoints (a failed hand-off). */
const refusedEndpoints = new Set<number>();
const inngestEvents: { name: string; id: string; data: { deliveryId: number; endpointId: number } }[] = [];
let webhooks: typeof import("../../lib/webhooks/index.ts");
let fn: typeof import("../../inngest/functions/deliver-webhook.ts");
let db: typeof import("../../lib/db/client.ts").db;

beforeAll(async () => {
  database = await createTestDatabase();
  inngestApi = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const events = req.method === "POST" ? (JSON.parse(raw) as typeof inngestEvents) : [];
      if (req.method !== "POST" || !req.url?.startsWith("/e/test-key") || events.some((e) => refusedEndpoints.has(e.data.endpointId))) {
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "unavailable", status: 500 }));
        return;
      }
      inngestEvents.push(...events);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: events.map((e) => e.id), status: 200 }));
    });
  });
  await new Promise<void>((resolve) => inngestApi.listen(0, "127.0.0.1", resolve));
  useEnv({
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: undefined, // the default schedule: 1m, 5m, 30m, 2h, 6h, 12h
    WEBHOOK_DISABLE_AFTER: "30d", // the mocked sleeps move the clock by days
    WEBHOOK_TIMEOUT_MS: "3000",
    DNS_SERVERS: undefined,
    INNGEST_EVENT_KEY: "test-key",
    INNGEST_BASE_URL: `http://127.0.0.1:${(inngestApi.address() as AddressInfo).port}`,
  });
  await useDatabaseInProcess(database.url);
  webhooks = await import("../../lib/webhooks/index.ts");
  fn = await import("../../inngest/functions/deliver-webhook.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  inngestApi?.close();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

/** Fresh mocks for every execute(): each sleep moves the clock 13 hours (more than any delay). */
function sleeps() {
  return Array.from({ length: 12 }, (_, i) => ({
    id: `wait-${i + 1}`,
    handler() {
      vi.setSystemTime(Date.now() + 13 * 3_600_000);
    },
  }));
}

/**
 * A workspace with an endpoint on a receiver of its own that answers its requests with `answers`
 * in order (500 after them), and one event; `beforeEmit` runs between making the endpoint and the event.
 */
async function newDelivery(answers: number[] = [], beforeEmit?: (endpointId: number) => void) {
  const receiver = await startHttpsReceiver({ respond: (_r, i) => ({ status: answers[i] ?? 500 }) });
  receivers.push(receiver);
  const ws = await newWorkspace("team");
  const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url() });
  beforeEmit?.(ep.id);
  const { deliveryIds } = await emitEvent(ws);
  expect(deliveryIds).toHaveLength(1);
  return { ws, ep, deliveryId: deliveryIds[0], receiver };
}

function engine(deliveryId: number, endpointId: number) {
  return new InngestTestEngine({
    function: fn.deliverWebhook,
    events: [{ name: "linkhop/webhook.delivery.requested", data: { deliveryId, endpointId } }],
  });
}

describe("Inngest function deliver-webhook", () => {
  it("is configured with retries: 0, idempotency per delivery and concurrency per endpoint", () => {
    const opts = (fn.deliverWebhook as unknown as { opts: Record<string, unknown> }).opts;
    expect(opts).toMatchObject({
      id: "deliver-webhook",
      retries: 0,
      idempotency: "event.data.deliveryId",
      concurrency: { key: "event.data.endpointId", limit: fn.PER_ENDPOINT_CONCURRENCY },
    });
  });

  it("makes 7 attempts on permanent failure, sleeping the schedule's delays in between", async () => {
    const { ep, deliveryId, receiver } = await newDelivery();
    vi.useFakeTimers({ toFake: ["Date"] });
    const { result, ctx, error } = await engine(deliveryId, ep.id).execute({ steps: sleeps() });
    vi.useRealTimers();
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ outcome: "http_status", done: true, delivered: false });
    expect(ctx.step.run.mock.calls.map((c) => c[0])).toEqual([
      "attempt-1",
      "attempt-2",
      "attempt-3",
      "attempt-4",
      "attempt-5",
      "attempt-6",
      "attempt-7",
    ]);
    expect(ctx.step.sleep.mock.calls.map((c) => [c[0], c[1]])).toEqual(SCHEDULE.map((ms, i) => [`wait-${i + 1}`, ms]));
    expect(receiver.requests).toHaveLength(7);
    const attempts = await attemptsOf(deliveryId);
    expect(attempts.map((a) => a.outcome)).toEqual(Array(7).fill("http_status"));
    expect(await db().delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({
      status: "failed",
      attempts: 7,
      nextAttemptAt: null,
    });
  });

  it("stops after the success at attempt 3", async () => {
    const { ep, deliveryId, receiver } = await newDelivery([500, 500, 200]);
    vi.useFakeTimers({ toFake: ["Date"] });
    const { result, ctx } = await engine(deliveryId, ep.id).execute({ steps: sleeps() });
    vi.useRealTimers();
    expect(result).toMatchObject({ outcome: "delivered", delivered: true, done: true, statusCode: 200 });
    expect(ctx.step.run.mock.calls.map((c) => c[0])).toEqual(["attempt-1", "attempt-2", "attempt-3"]);
    expect(ctx.step.sleep.mock.calls.map((c) => c[1])).toEqual(SCHEDULE.slice(0, 2));
    expect(receiver.requests).toHaveLength(3);
    expect(await db().delivery.findUniqueOrThrow({ where: { id: deliveryId } })).toMatchObject({ status: "delivered", attempts: 3 });
  });

  it("a second run for the same delivery (duplicate hand-off) sends nothing before the next attempt is due", async () => {
    const { ep, deliveryId, receiver } = await newDelivery([500]);
    const first = await webhooks.attemptDelivery(deliveryId);
    expect(first).toMatchObject({ attempted: true, retryInMs: 60_000 });
    // The duplicate's first step finds the delivery not due: it only sleeps.
    const { ctx } = await engine(deliveryId, ep.id).executeStep("attempt-1", { steps: sleeps() });
    expect(receiver.requests).toHaveLength(1);
    expect(ctx.step.run).toHaveBeenCalledTimes(1);
  });
});

describe("hand-off to Inngest", () => {
  it("sends one event per new delivery, keyed by the delivery id, and marks it handed off", async () => {
    const { deliveryId, ep } = await newDelivery();
    const event = await eventually(async () => inngestEvents.find((e) => e.data.deliveryId === deliveryId));
    expect(event).toMatchObject({
      name: "linkhop/webhook.delivery.requested",
      id: `delivery-${deliveryId}`,
      data: { deliveryId, endpointId: ep.id },
    });
    await eventually(async () => (await db().delivery.findUniqueOrThrow({ where: { id: deliveryId } })).handedOffAt);
  });

  it("a failed hand-off is handed off again by the sweep", async () => {
    const { backgroundSettled: handoffsSettled } = await import("../../lib/background.ts");
    // Whatever other tests left unacknowledged is handed off now, so what the sweep finds below is this test's alone.
    await handoffsSettled();
    await webhooks.sweepUnhandedDeliveries(0);
    const { deliveryId, ep } = await newDelivery([], (endpointId) => refusedEndpoints.add(endpointId));
    // the hand-off has finished: the SDK's own tries gave up
    await handoffsSettled();
    expect((await db().delivery.findUniqueOrThrow({ where: { id: deliveryId } })).handedOffAt).toBeNull();
    expect(inngestEvents.map((e) => e.id)).not.toContain(`delivery-${deliveryId}`);
    expect(await webhooks.sweepUnhandedDeliveries(60_000)).toBe(0); // too young to sweep
    refusedEndpoints.delete(ep.id);
    expect(await webhooks.sweepUnhandedDeliveries(0)).toBe(1);
    expect(inngestEvents.map((e) => e.id)).toContain(`delivery-${deliveryId}`);
    expect((await db().delivery.findUniqueOrThrow({ where: { id: deliveryId } })).handedOffAt).not.toBeNull();
    expect(await webhooks.sweepUnhandedDeliveries(0)).toBe(0);
  });
});
