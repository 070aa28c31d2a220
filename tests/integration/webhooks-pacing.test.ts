import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { eventually, newWorkspace, useEnv } from "./webhooks-helpers.ts";

// waitForSendSlot (lib/webhooks/pacing.ts) against real PostgreSQL: a request that would leave more
// than SLOT_LATENESS_MS after its slot takes a new slot from the endpoint's row first; one on time
// takes none; taking it survives being a deadlock's victim. (The per-second rate at a real
// receiver: webhooks-rate and webhooks-inngest-rate.)

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
  // The app's connections look for deadlocks after 8 s (the deadlock test below builds its cycle
  // well within that, so that PostgreSQL's first check finds it and picks the slot's statement).
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await admin.query(`alter database "${new URL(database.url).pathname.slice(1)}" set deadlock_timeout = '8s'`);
  await admin.end();
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1" });
  await useDatabaseInProcess(database.url);
});

afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("waitForSendSlot", () => {
  it("takes a new slot for a request far past its slot, and none for one on time", async () => {
    const { createEndpoint } = await import("../../lib/webhooks/index.ts");
    const { SLOT_LATENESS_MS, takeSendSlots, waitForSendSlot } = await import("../../lib/webhooks/pacing.ts");
    const { db } = await import("../../lib/db/client.ts");
    const ws = await newWorkspace("team"); // 50/s: slots 21 ms apart
    const ep = await createEndpoint(ws.id, { url: "http://127.0.0.1:9/paced" });
    const slotAt = async () => (await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).sendSlotAt?.getTime() ?? 0;

    // the first slot a second ahead: that it is met on time must not depend on how fast the two
    // statements before the wait run on a loaded machine (a slot taken at "now" was missed by them)
    await db().webhookEndpoint.update({ where: { id: ep.id }, data: { sendSlotAt: new Date(Date.now() + 1000) } });
    const first = (await takeSendSlots(new Map([[ep.id, 1]]))).get(ep.id)!;
    const afterFirst = await slotAt();
    await waitForSendSlot({ endpointId: ep.id, at: first.firstAt, intervalMs: first.intervalMs });
    expect(Date.now()).toBeGreaterThanOrEqual(first.firstAt - 2);
    expect(await slotAt()).toBe(afterFirst); // on time: no other slot taken

    const late = { endpointId: ep.id, at: Date.now() - 10 * SLOT_LATENESS_MS, intervalMs: first.intervalMs };
    await waitForSendSlot(late);
    // a new slot was taken (the row moved on by one interval from where it was, or from now)
    expect(await slotAt()).toBeGreaterThan(afterFirst);
  });

  it("takes the new slot even when PostgreSQL aborts its statement to break a deadlock", async () => {
    const { createEndpoint } = await import("../../lib/webhooks/index.ts");
    const { SLOT_LATENESS_MS, waitForSendSlot } = await import("../../lib/webhooks/pacing.ts");
    const { db } = await import("../../lib/db/client.ts");
    const ws = await newWorkspace("team");
    const e1 = await createEndpoint(ws.id, { url: "http://127.0.0.1:9/one" });
    const e2 = await createEndpoint(ws.id, { url: "http://127.0.0.1:9/two" });
    const slotAt = async () => (await db().webhookEndpoint.findUniqueOrThrow({ where: { id: e1.id } })).sendSlotAt?.getTime() ?? 0;
    const before = await slotAt();
    // Two other sessions, which look for deadlocks only after a minute: the slot's statement is
    // the one PostgreSQL finds in the cycle and aborts.
    const [a, b, watch] = [0, 1, 2].map(() => new pg.Client({ connectionString: database.url }));
    await Promise.all([a, b, watch].map((c) => c.connect()));
    for (const c of [a, b]) c.on("error", () => {}); // they are terminated at the end
    try {
      const pid = async (c: pg.Client) => (await c.query("select pg_backend_pid() as pid")).rows[0].pid as number;
      const [pidA, pidB] = [await pid(a), await pid(b)];
      for (const c of [a, b]) await c.query("set deadlock_timeout = '60s'");
      const waitOf = async (p: number) =>
        (await watch.query("select wait_event from pg_stat_activity where pid = $1", [p])).rows[0]?.wait_event as string | undefined;
      await a.query("begin");
      await a.query(`select 1 from "WebhookEndpoint" where id = $1 for no key update`, [e1.id]);
      await b.query("begin");
      await b.query(`select 1 from "WebhookEndpoint" where id = $1 for update`, [e2.id]);

      // The late request's new slot waits for session A's lock on the endpoint, first in the row's queue.
      const late = waitForSendSlot({ endpointId: e1.id, at: Date.now() - 10 * SLOT_LATENESS_MS, intervalMs: 21 });
      const settled = late.then(
        () => "taken",
        (e: Error) => e,
      );
      await eventually(
        async () =>
          (
            await watch.query(
              `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%slotted%'`,
            )
          ).rowCount,
        10_000,
        "the slot statement waiting for the endpoint's row",
      );
      // B queues behind it for the same row; A then waits for B's row: slot -> A -> B -> slot.
      const bWaits = b.query(`select 1 from "WebhookEndpoint" where id = $1 for no key update`, [e1.id]).catch((e: Error) => e);
      await eventually(async () => (await waitOf(pidB)) === "tuple", 10_000, "B waiting behind the slot statement");
      const aWaits = a.query(`select 1 from "WebhookEndpoint" where id = $1 for update`, [e2.id]).catch((e: Error) => e);
      await eventually(async () => (await waitOf(pidA)) === "transactionid", 10_000, "A waiting for B");
      // PostgreSQL aborts the slot's statement: B moves up to wait for A's transaction itself.
      await eventually(async () => (await waitOf(pidB)) === "transactionid", 30_000, "the slot statement aborted");
      for (const p of [pidA, pidB]) await watch.query("select pg_terminate_backend($1)", [p]);
      await Promise.all([aWaits, bWaits]);
      expect(await settled).toBe("taken");
      expect(await slotAt()).toBeGreaterThan(before);
    } finally {
      await Promise.all([a, b, watch].map((c) => c.end().catch(() => {})));
    }
  }, 60_000);
});
