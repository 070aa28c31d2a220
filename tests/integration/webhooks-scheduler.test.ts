// Two app processes, each running the built-in scheduler, on one database: every attempt of every
// delivery is sent exactly once (claims with FOR UPDATE SKIP LOCKED), and both processes take a
// share of the work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { startReceiver, type Receiver } from "../support/https-receiver.ts";
import { emitEvent, eventually, newWorkspace, sleep, useEnv } from "./webhooks-helpers.ts";

const ENDPOINTS = 4;
const EVENTS = 30;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let apps: RunningApp[] = [];
let receiver: Receiver;
const seen = new Map<string, number>();

beforeAll(async () => {
  database = await createTestDatabase();
  // First attempt of each delivery fails, the second succeeds: two attempts per delivery.
  receiver = await startReceiver({
    respond: (req) => {
      const key = `${req.path} ${req.headers["service-delivery"]}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      return { status: n === 1 ? 500 : 200, delayMs: 5 };
    },
  });
  const env = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "100ms,100ms,100ms,100ms,100ms,100ms", WEBHOOK_TIMEOUT_MS: "5000" };
  useEnv({ ...env, DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
  apps = await Promise.all([startApp(database.url, env), startApp(database.url, env)]);
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("built-in scheduler in two processes", () => {
  it("never sends the same attempt twice", async () => {
    const { createEndpoint } = await import("../../lib/webhooks/index.ts");
    const { db } = await import("../../lib/db/client.ts");
    const ws = await newWorkspace("team");
    for (let i = 0; i < ENDPOINTS; i++) await createEndpoint(ws.id, { url: receiver.url("127.0.0.1", `/e${i}`) });
    // Events arrive in bursts while both schedulers are polling.
    const deliveryIds: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      deliveryIds.push(...(await emitEvent(ws)).deliveryIds);
      if (i % 10 === 9) await sleep(100);
    }
    expect(deliveryIds).toHaveLength(ENDPOINTS * EVENTS);

    await receiver.waitFor(2 * ENDPOINTS * EVENTS, 60_000);
    await eventually(async () => (await db().delivery.count({ where: { id: { in: deliveryIds }, status: "delivered" } })) === deliveryIds.length, 30_000, "all delivered");
    // Stop both processes (each waits for its attempts in flight): after that no duplicate can
    // still be on its way, so the counts below are final.
    await Promise.all(apps.map((a) => a.stop()));

    expect(receiver.requests).toHaveLength(2 * ENDPOINTS * EVENTS);
    expect([...seen.entries()].filter(([, n]) => n !== 2), "requests seen other than twice").toEqual([]);
    expect(seen.size).toBe(ENDPOINTS * EVENTS);
    const rows = await db().deliveryAttempt.groupBy({ by: ["deliveryId"], where: { deliveryId: { in: deliveryIds } }, _count: { _all: true }, _max: { number: true } });
    expect(rows).toHaveLength(deliveryIds.length);
    expect(rows.filter((r) => r._count._all !== 2 || r._max.number !== 2), "deliveries without exactly two attempts").toEqual([]);

    // Both processes took part (each reported its count when it stopped).
    const counts = apps.map((a) => Number(/built-in scheduler stopped after (\d+) attempts/.exec(a.logs())?.[1] ?? -1));
    expect(counts.every((n) => n > 0), `attempts per process: ${counts.join(", ")}`).toBe(true);
    expect(counts[0] + counts[1]).toBe(2 * ENDPOINTS * EVENTS);
  }, 180_000);
});
