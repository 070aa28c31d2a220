// An attempt that was sent is recorded even when the database is slow to give a connection: a
// sent request whose result is lost would be sent again, as the same attempt, once the claim
// expires. The test process's pool has one connection, and the receiver holds it in a
// transaction for 3 s (longer than Prisma's default 2 s wait to start a transaction) before it
// answers, so the attempt's bookkeeping has to wait for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { emitEvent, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

const HOLD_MS = 3000;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let db: typeof import("../../lib/db/client.ts").db;
/** Set by the test: the receiver starts holding the pool's only connection before it answers. */
let holdPool = false;
let held: Promise<number> | null = null;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver({
    respond: async () => {
      if (!holdPool) return { status: 200 };
      let inside!: () => void;
      const entered = new Promise<void>((r) => (inside = r));
      held = db().$transaction(
        async (tx) => {
          inside();
          await tx.$executeRaw`select pg_sleep(${HOLD_MS / 1000})`;
          return Date.now();
        },
        { maxWait: 60_000, timeout: 60_000 },
      );
      await entered;
      return { status: 200 };
    },
  });
  useEnv({
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: "1m,5m,30m,2h,6h,12h",
    WEBHOOK_TIMEOUT_MS: "30000",
    DNS_SERVERS: undefined,
    DATABASE_POOL_SIZE: "1",
  });
  await useDatabaseInProcess(database.url);
  webhooks = await import("../../lib/webhooks/index.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterAll(async () => {
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
  useEnv({ DATABASE_POOL_SIZE: undefined });
});

describe("recording an attempt", () => {
  it("waits for a busy pool instead of losing a sent attempt", async () => {
    const ws = await newWorkspace("team");
    await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/busy") });
    const { deliveryIds } = await emitEvent(ws);
    expect(deliveryIds).toHaveLength(1);

    holdPool = true;
    const r = await webhooks.attemptDelivery(deliveryIds[0]);
    holdPool = false;
    const recordedAt = Date.now();

    expect(receiver.requests).toHaveLength(1);
    expect(r).toMatchObject({ attempted: true, outcome: "delivered", delivered: true, done: true, statusCode: 200 });
    const attempts = await db().deliveryAttempt.findMany({ where: { deliveryId: deliveryIds[0] } });
    expect(attempts.map((a) => ({ number: a.number, outcome: a.outcome, statusCode: a.statusCode }))).toEqual([
      { number: 1, outcome: "delivered", statusCode: 200 },
    ]);
    const d = await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } });
    expect(d).toMatchObject({ status: "delivered", attempts: 1, lockedUntil: null, nextAttemptAt: null });

    // The scenario happened: the pool was held from the request on, and the result was written
    // only after it was free again.
    expect(held, "the receiver held the pool").not.toBeNull();
    const releasedAt = await held!;
    expect(releasedAt - receiver.requests[0].at).toBeGreaterThanOrEqual(HOLD_MS - 100);
    expect(recordedAt).toBeGreaterThanOrEqual(releasedAt);
  });
});
