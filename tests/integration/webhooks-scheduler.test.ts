// Two app processes, each running the built-in scheduler, on one database: every attempt of every
// delivery is sent exactly once (claims with FOR UPDATE SKIP LOCKED), and both processes take a
// share of the work.
//
// WEBHOOK_TIMEOUT_MS is 30 s, far above what a loopback answer takes even on a loaded machine: an
// attempt that times out is retried by design (a third request that is no duplicate), and this
// test is about claims, not timeouts. The claim hold is that timeout + 30 s, so a sent attempt
// whose result were lost would only come back after the test gave up waiting: it fails either way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { emitEvent, eventually, newWorkspace, sleep, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

const ENDPOINTS = 4;
const EVENTS = 30;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let apps: RunningApp[] = [];
let receiver: Receiver;
const seen = new Map<string, number>();

beforeAll(async () => {
  database = await createTestDatabase();
  // First attempt of each delivery fails, the second succeeds: two attempts per delivery.
  receiver = await startHttpsReceiver({
    respond: (req) => {
      const key = `${req.path} ${req.headers["service-delivery"]}`;
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      return { status: n === 1 ? 500 : 200, delayMs: 5 };
    },
  });
  const env = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "100ms,100ms,100ms,100ms,100ms,100ms", WEBHOOK_TIMEOUT_MS: "30000" };
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

    // On failure: the attempts of the deliveries that went wrong, and what the processes logged.
    const report = async () => {
      const attempts = await db().deliveryAttempt.findMany({
        where: { deliveryId: { in: deliveryIds } },
        orderBy: [{ deliveryId: "asc" }, { number: "asc" }],
      });
      const per = new Map<number, typeof attempts>();
      for (const a of attempts) per.set(a.deliveryId, [...(per.get(a.deliveryId) ?? []), a]);
      const odd = deliveryIds.filter(
        (id) => (per.get(id) ?? []).map((a) => `${a.number}:${a.outcome}`).join(",") !== "1:http_status,2:delivered",
      );
      const lines = odd
        .slice(0, 10)
        .map(
          (id) =>
            `delivery ${id}: ${JSON.stringify((per.get(id) ?? []).map((a) => ({ number: a.number, outcome: a.outcome, startedAt: a.startedAt, durationMs: a.durationMs, error: a.error })))}`,
        );
      const logged = apps
        .flatMap((a) =>
          a
            .logs()
            .split("\n")
            .filter((l) => /\[webhooks\] (?!deliveries run|built-in scheduler stopped)/.test(l)),
        )
        .slice(0, 20);
      return {
        attempts,
        per,
        odd,
        text: [`${odd.length} deliveries without exactly the attempts 1 (500) and 2 (200)`, ...lines, "logs:", ...logged].join("\n"),
      };
    };

    await receiver.waitFor(2 * ENDPOINTS * EVENTS, 90_000).catch(async (e) => {
      throw new Error(`${(e as Error).message}\n${(await report()).text}`);
    });
    await eventually(
      async () => (await db().delivery.count({ where: { id: { in: deliveryIds }, status: "delivered" } })) === deliveryIds.length,
      60_000,
      "all delivered",
    );
    // Stop both processes (each waits for its attempts in flight): after that no duplicate can
    // still be on its way, so the counts below are final.
    await Promise.all(apps.map((a) => a.stop()));

    const { attempts, per, odd, text } = await report();
    expect(receiver.requests.length, text).toBe(2 * ENDPOINTS * EVENTS);
    expect(
      [...seen.entries()].filter(([, n]) => n !== 2),
      `requests seen other than twice\n${text}`,
    ).toEqual([]);
    expect(seen.size).toBe(ENDPOINTS * EVENTS);
    expect(odd, text).toEqual([]);
    expect(attempts).toHaveLength(2 * ENDPOINTS * EVENTS);
    // The second attempt was claimed only after the first one's result was written.
    const overlapping = deliveryIds.filter((id) => {
      const [first, second] = per.get(id)!;
      return second.startedAt.getTime() < first.startedAt.getTime() + first.durationMs;
    });
    expect(overlapping, "deliveries whose two attempts overlapped").toEqual([]);

    // Both processes took part (each reported its count when it stopped).
    const counts = apps.map((a) => Number(/built-in scheduler stopped after (\d+) attempts/.exec(a.logs())?.[1] ?? -1));
    expect(
      counts.every((n) => n > 0),
      `attempts per process: ${counts.join(", ")}`,
    ).toBe(true);
    expect(counts[0] + counts[1]).toBe(2 * ENDPOINTS * EVENTS);
  }, 240_000);
});
