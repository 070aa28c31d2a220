import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { withEvents } from "../../lib/events/index.ts";
import { createEndpoint, sendTestEvent } from "../../lib/webhooks/index.ts";
import { assertWritable, DEACTIVATED_MESSAGE, setActive } from "../../lib/workspaces/index.ts";
import { DEACTIVATED_CANCEL_REASON } from "../../lib/workspaces/writable.ts";
import { call, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { emitEvent, eventually, startHttpsReceiver } from "./webhooks-helpers.ts";

// A deactivated workspace (admin CLI workspace:deactivate -> setActive) is stopped: queued
// deliveries are cancelled with the reason in the log, new changes emit no events, the Test button
// is refused and nothing reaches the receiver; reactivated, it works again. (The app's pages and
// actions refusing changes are tried in a browser: tests/e2e/security-app-deactivated.spec.ts.)

let env: ApiTestEnv;
const receivers: Receiver[] = [];

/** An HTTPS receiver of the test's own (the app trusts the run's test CA). */
async function newReceiver(): Promise<Receiver> {
  const r = await startHttpsReceiver();
  receivers.push(r);
  return r;
}

/** What a receiver got: each request's event type and Service-Delivery header. */
function received(r: Receiver): { type: string; delivery: string }[] {
  return r.requests.map((q) => ({ type: JSON.parse(q.raw.toString("utf8")).type, delivery: String(q.headers["service-delivery"]) }));
}

beforeAll(async () => {
  env = await startApiTest({ env: { WEBHOOK_ALLOW_PRIVATE: "1" } });
});
afterAll(async () => {
  await env?.stop();
  await Promise.all(receivers.map((r) => r.stop()));
});

describe("a deactivated workspace", () => {
  it("cancels queued deliveries, emits nothing, refuses the Test button and sends nothing; reactivated it works again", async () => {
    const receiver = await newReceiver();
    const { workspace, key } = await makeWorkspace("team");
    const endpoint = await createEndpoint(workspace.id, { url: receiver.url(), events: ["member.joined"] });

    // A delivery queued for later (a retry waiting for its turn).
    const later = new Date(Date.now() + 3_600_000);
    await withEvents(async (_tx, emit) => emit(workspace, "member.joined", { queued: true }, later));
    const queued = await db().delivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    expect(queued.status).toBe("pending");

    await setActive(workspace.slug, false);
    const cancelled = await db().delivery.findUniqueOrThrow({ where: { id: queued.id } });
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.cancelReason).toBe(DEACTIVATED_CANCEL_REASON);
    expect(cancelled.nextAttemptAt).toBeNull();

    // Changes emit nothing, every write is refused by the shared rule, the Test button too.
    const { event } = await emitEvent(workspace, "member.joined");
    expect(event).toBeNull();
    await expect(assertWritable(workspace.id)).rejects.toThrow(DEACTIVATED_MESSAGE);
    await expect(sendTestEvent(endpoint.id, workspace.id)).rejects.toThrow(DEACTIVATED_MESSAGE);
    expect(await db().delivery.count({ where: { endpointId: endpoint.id, isTest: true } })).toBe(0);
    // The API is closed to its keys.
    expect((await call(env.app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/x" } })).status).toBe(401);
    expect(received(receiver)).toEqual([]);

    // Reactivated: events flow again (the app's scheduler sends them) and the Test button works.
    await setActive(workspace.slug, true);
    await assertWritable(workspace.id);
    const again = await emitEvent(workspace, "member.joined");
    expect(again.event).not.toBeNull();
    await eventually(async () => received(receiver).some((r) => r.delivery === again.event!.id), 20_000, "delivery after reactivation");
    const test = await sendTestEvent(endpoint.id, workspace.id);
    expect(test.delivered).toBe(true);
    expect(received(receiver)).toEqual([
      { type: "member.joined", delivery: again.event!.id },
      { type: "webhook.test", delivery: test.eventId },
    ]);
    // The cancelled delivery stays cancelled.
    expect((await db().delivery.findUniqueOrThrow({ where: { id: queued.id } })).status).toBe("cancelled");
  });

  it("a delivery that was already due when the workspace was switched off is cancelled by the attempt, not sent", async () => {
    const receiver = await newReceiver();
    const { workspace } = await makeWorkspace("team");
    const endpoint = await createEndpoint(workspace.id, { url: receiver.url(), events: ["member.joined"] });
    await db().workspace.update({ where: { id: workspace.id }, data: { active: false } }); // no cancellation pass: a race with setActive
    const ev = await db().webhookEvent.create({
      data: { id: `evt_race_${workspace.id}`, workspaceId: workspace.id, type: "member.joined", body: "{}", createdAt: new Date() },
    });
    const d = await db().delivery.create({ data: { eventId: ev.id, endpointId: endpoint.id, nextAttemptAt: new Date() } });
    const done = await eventually(
      async () => {
        const row = await db().delivery.findUniqueOrThrow({ where: { id: d.id } });
        return row.status !== "pending" ? row : null;
      },
      20_000,
      "the scheduler to pick the delivery up",
    );
    expect(done.status).toBe("cancelled");
    expect(done.cancelReason).toBe(DEACTIVATED_CANCEL_REASON);
    expect(received(receiver)).toEqual([]);
  });
});
