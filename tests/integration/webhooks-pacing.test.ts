import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { newWorkspace, useEnv } from "./webhooks-helpers.ts";

// waitForSendSlot (lib/webhooks/pacing.ts) against real PostgreSQL: a request that would leave more
// than SLOT_LATENESS_MS after its slot takes a new slot from the endpoint's row first; one on time
// takes none. (The per-second rate at a real receiver: webhooks-rate and webhooks-inngest-rate.)

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
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
});
