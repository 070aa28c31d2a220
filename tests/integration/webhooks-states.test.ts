// Endpoint states: switched off after 20 events that failed every attempt, or when failing with
// nothing delivered for WEBHOOK_DISABLE_AFTER; the owners are emailed (real SMTP server on
// loopback); nothing is sent while disabled; turning it back on restarts the count; a plan
// without webhooks keeps endpoints editable but sends nothing. Attempts are made in-process with
// attemptDelivery (what both schedulers call) so the test decides when each one happens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";
import { SELECTABLE_EVENT_TYPES, type EventType } from "../../lib/events/index.ts";
import { emitEvent, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";
import { captureLogs } from "../support/logs.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let smtp: SmtpServer;
let receiver: Receiver;
let failing = true;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let db: typeof import("../../lib/db/client.ts").db;

const baseEnv = {
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_DELAYS: "0ms,0ms,0ms,0ms,0ms,0ms",
  WEBHOOK_TIMEOUT_MS: "3000",
  WEBHOOK_DISABLE_AFTER: "3d",
  APP_URL: "https://links.example.test",
  MAIL_FROM: "Linkhop <no-reply@links.example.test>",
};

beforeAll(async () => {
  database = await createTestDatabase();
  smtp = await startSmtpServer();
  receiver = await startHttpsReceiver({ respond: () => (failing ? { status: 500, body: "broken" } : { status: 200, body: "ok" }) });
  useEnv({ ...baseEnv, SMTP_URL: smtp.url, DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
  webhooks = await import("../../lib/webhooks/index.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterAll(async () => {
  await receiver?.stop();
  await smtp?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

/** Runs automatic attempts until the delivery is finished; returns how many were made. */
async function runToEnd(deliveryId: number): Promise<number> {
  let n = 0;
  for (let i = 0; i < 10; i++) {
    const r = await webhooks.attemptDelivery(deliveryId);
    if (r.attempted) n++;
    if (r.done) break;
  }
  return n;
}

describe("endpoint switched off", () => {
  it("after 20 events in a row failed every attempt; the owner is emailed once; nothing is sent while disabled", async () => {
    failing = true;
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url(), description: "orders" });

    for (let i = 1; i <= 19; i++) {
      const { deliveryIds } = await emitEvent(ws);
      expect(await runToEnd(deliveryIds[0])).toBe(7);
    }
    let row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(row).toMatchObject({ enabled: true, consecutiveFailures: 19 });

    // An event still in its retries when the endpoint is switched off.
    const inFlight = await emitEvent(ws);
    await webhooks.attemptDelivery(inFlight.deliveryIds[0]);

    const { deliveryIds } = await emitEvent(ws);
    expect(await runToEnd(deliveryIds[0])).toBe(7);
    row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(row.enabled).toBe(false);
    expect(row.consecutiveFailures).toBe(20);
    expect(row.disabledReason).toMatch(/20 events in a row failed every attempt/);

    const mail = await smtp.waitFor((m) => m.to.includes(ws.ownerEmail));
    expect(mail.subject).toMatch(/webhook endpoint disabled/i);
    expect(mail.text).toContain(receiver.url());
    expect(mail.text).toContain("20 events in a row failed every attempt");
    expect(mail.text).toContain(`https://links.example.test/w/${ws.slug}/developers`);
    expect(mail.from).toBe("no-reply@links.example.test");

    // Pending retries stop, with the reason kept on the delivery.
    const sent = receiver.requests.length;
    const stopped = await db().delivery.findUniqueOrThrow({ where: { id: inFlight.deliveryIds[0] } });
    expect(stopped).toMatchObject({ status: "cancelled", nextAttemptAt: null });
    expect(stopped.cancelReason).toMatch(/endpoint was disabled/);
    const again = await webhooks.attemptDelivery(inFlight.deliveryIds[0]);
    expect(again).toMatchObject({ attempted: false, done: true });
    // Resend and Test send nothing either; new events are not kept for it.
    expect(await webhooks.resendDelivery(ws.id, deliveryIds[0])).toMatchObject({ attempted: false, outcome: "cancelled" });
    expect(await webhooks.sendTestEvent(ep.id, ws.id)).toMatchObject({ attempted: false, outcome: "cancelled" });
    const later = await emitEvent(ws);
    expect(later.deliveryIds).toEqual([]);
    expect(receiver.requests.length).toBe(sent);
    // every owner mail queued so far has been handed to the SMTP server: still just the one
    const { backgroundSettled: noticesSettled } = await import("../../lib/background.ts");
    await noticesSettled();
    expect(smtp.messages.filter((m) => m.to.includes(ws.ownerEmail))).toHaveLength(1);

    // Turning it back on restarts the failure count; new events are delivered again.
    const on = await webhooks.setEndpointEnabled(ws.id, ep.id, true);
    expect(on).toMatchObject({ enabled: true, consecutiveFailures: 0, failingSince: null, disabledReason: null });
    failing = false;
    const next = await emitEvent(ws);
    expect(next.deliveryIds).toHaveLength(1);
    expect(await webhooks.attemptDelivery(next.deliveryIds[0])).toMatchObject({ delivered: true, done: true });
    expect(receiver.requests.length).toBe(sent + 1);
  }, 180_000);

  it("when failing with nothing delivered for WEBHOOK_DISABLE_AFTER; a delivery in between restarts the clock", async () => {
    const PERIOD_MS = 3000;
    useEnv({ WEBHOOK_DISABLE_AFTER: `${PERIOD_MS}ms` });
    try {
      const ws = await newWorkspace("team");
      const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url() });
      const endpoint = () => db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });

      failing = true;
      const first = await emitEvent(ws);
      expect(await webhooks.attemptDelivery(first.deliveryIds[0])).toMatchObject({ attempted: true, delivered: false, done: false });
      const firstFailingSince = (await endpoint()).failingSince!;
      expect(firstFailingSince).not.toBeNull();
      failing = false; // one success ends the failing period
      const ok = await emitEvent(ws);
      expect(await webhooks.attemptDelivery(ok.deliveryIds[0])).toMatchObject({ delivered: true });
      let row = await endpoint();
      expect(row.failingSince).toBeNull();
      expect(row.lastSuccessAt).not.toBeNull();

      failing = true;
      await webhooks.attemptDelivery(first.deliveryIds[0]); // a new failing period starts now
      row = await endpoint();
      const since = row.failingSince!;
      expect(since.getTime()).toBeGreaterThan(firstFailingSince.getTime());
      await webhooks.attemptDelivery(first.deliveryIds[0]);
      const attempts = await db().deliveryAttempt.findMany({ where: { deliveryId: first.deliveryIds[0] }, orderBy: { number: "asc" } });
      const lastStarted = attempts[attempts.length - 1].startedAt.getTime();
      expect(lastStarted - since.getTime(), "this attempt must fall inside the period for the check to mean anything").toBeLessThan(
        PERIOD_MS,
      );
      expect((await endpoint()).enabled).toBe(true);

      // Once the period since the failures began has passed, the next failure switches it off.
      await new Promise((r) => setTimeout(r, Math.max(0, since.getTime() + PERIOD_MS + 50 - Date.now())));
      const r = await webhooks.attemptDelivery(first.deliveryIds[0]);
      expect(r).toMatchObject({ attempted: true, delivered: false, done: true });
      row = await endpoint();
      expect(row.enabled).toBe(false);
      expect(row.consecutiveFailures).toBe(0); // no event has failed every attempt yet
      expect(row.disabledReason).toMatch(/failing with nothing delivered since/);

      const mail = await smtp.waitFor((m) => m.to.includes(ws.ownerEmail));
      expect(mail.text).toMatch(/failing with nothing delivered since/);
      expect(await db().delivery.findUniqueOrThrow({ where: { id: first.deliveryIds[0] } })).toMatchObject({ status: "cancelled" });
    } finally {
      useEnv({ WEBHOOK_DISABLE_AFTER: baseEnv.WEBHOOK_DISABLE_AFTER });
    }
  });

  it("sends to the log when SMTP_URL is not set", async () => {
    useEnv({ SMTP_URL: undefined });
    const log = captureLogs();
    try {
      const { sendMail } = await import("../../lib/mail/index.ts");
      const r = await sendMail({ to: "someone@example.test", subject: "Hello", text: "Body text" });
      expect(r).toEqual({ sent: false, via: "log" });
    } finally {
      log.restore();
      useEnv({ SMTP_URL: smtp.url });
    }
    expect(log.text()).toContain("someone@example.test: Hello");
    expect(log.text()).toContain("Body text");
  });
});

describe("plan without webhooks", () => {
  it("keeps endpoints listed, editable and removable, and sends nothing until the plan allows webhooks", async () => {
    failing = false;
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url(), events: ["member.joined"] });
    const pending = await emitEvent(ws);
    const { setPlan } = await import("../../lib/workspaces/index.ts");
    await setPlan(ws.slug, "pro");
    const downgraded = { ...ws, plan: "pro" };
    const sent = receiver.requests.length;

    // The retry that was due is cancelled with the reason; new events create no deliveries.
    const r = await webhooks.attemptDelivery(pending.deliveryIds[0]);
    expect(r).toMatchObject({ attempted: false, outcome: "cancelled", done: true });
    const d = await db().delivery.findUniqueOrThrow({ where: { id: pending.deliveryIds[0] } });
    expect(d).toMatchObject({ status: "cancelled" });
    expect(d.cancelReason).toMatch(/plan does not include webhooks/);
    expect((await emitEvent(downgraded)).deliveryIds).toEqual([]);
    expect(receiver.requests.length).toBe(sent);

    // Still listed and editable; creating another needs the feature.
    expect((await webhooks.listEndpoints(ws.id)).map((e) => e.id)).toEqual([ep.id]);
    const edited = await webhooks.updateEndpoint(ws.id, ep.id, { description: "kept", events: "all" });
    expect(edited).toMatchObject({ description: "kept", events: "all" });
    await expect(webhooks.createEndpoint(ws.id, { url: receiver.url() })).rejects.toMatchObject({ code: "feature" });

    // Back on a plan with webhooks: sent again.
    await setPlan(ws.slug, "team");
    const back = await emitEvent(ws);
    expect(await webhooks.attemptDelivery(back.deliveryIds[0])).toMatchObject({ delivered: true });

    await webhooks.deleteEndpoint(ws.id, ep.id);
    expect(await webhooks.listEndpoints(ws.id)).toEqual([]);
  });

  it("caps endpoints per plan (Team: 10)", async () => {
    const ws = await newWorkspace("team");
    for (let i = 0; i < 10; i++) await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", `/h${i}`) });
    await expect(webhooks.createEndpoint(ws.id, { url: receiver.url() })).rejects.toMatchObject({ code: "limit" });
  });
});

describe("endpoint selection and tenancy", () => {
  it("delivers only the selected types (or all) and never another workspace's endpoints", async () => {
    const ws = await newWorkspace("team");
    const other = await newWorkspace("team");
    const onlyDomains = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/d"), events: ["domain.verified"] });
    const all = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/all") });
    const { event, deliveryIds } = await emitEvent(ws, "member.joined");
    const targets = await db().delivery.findMany({ where: { id: { in: deliveryIds } } });
    expect(targets.map((t) => t.endpointId)).toEqual([all.id]);
    expect(event!.type).toBe("member.joined");
    const d2 = await emitEvent(ws, "domain.verified", { domain: { id: 1, host: "go.example.com" } });
    expect((await db().delivery.findMany({ where: { id: { in: d2.deliveryIds } } })).map((t) => t.endpointId).sort()).toEqual(
      [onlyDomains.id, all.id].sort(),
    );
    await expect(webhooks.getEndpoint(other.id, all.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(webhooks.resendDelivery(other.id, deliveryIds[0])).rejects.toMatchObject({ code: "not_found" });
    await expect(webhooks.sendTestEvent(all.id, other.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it('"all events" is stored as all, not as today\'s types, and receives a type added later', async () => {
    failing = false;
    const ws = await newWorkspace("team");
    const all = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/future-all") });
    const listed = await webhooks.createEndpoint(ws.id, {
      url: receiver.url("127.0.0.1", "/future-listed"),
      events: [...SELECTABLE_EVENT_TYPES],
    });
    const edited = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/future-edited"), events: ["link.created"] });
    await webhooks.updateEndpoint(ws.id, edited.id, { events: "all" });
    // Stored as "all" (not as the fixed list of today's types), on create and on edit alike.
    for (const id of [all.id, edited.id]) {
      expect(await db().webhookEndpoint.findUniqueOrThrow({ where: { id } })).toMatchObject({ allEvents: true, events: [] });
      expect((await webhooks.getEndpoint(ws.id, id)).events).toBe("all");
    }
    expect((await webhooks.getEndpoint(ws.id, listed.id)).events).toEqual([...SELECTABLE_EVENT_TYPES]);

    // A type that does not exist today, emitted the way the services emit (lib/events), reaches
    // both "all" endpoints and not the one that listed today's types.
    const future = "link.archived" as EventType;
    expect(SELECTABLE_EVENT_TYPES).not.toContain(future);
    const { event, deliveryIds } = await emitEvent(ws, future, { link: { id: 1 } });
    const targets = await db().delivery.findMany({ where: { id: { in: deliveryIds } }, orderBy: { endpointId: "asc" } });
    expect(targets.map((t) => t.endpointId)).toEqual([all.id, edited.id]);
    const before = receiver.requests.length;
    for (const id of deliveryIds) expect(await webhooks.attemptDelivery(id)).toMatchObject({ delivered: true, done: true });
    const got = receiver.requests.slice(before);
    expect(got.map((g) => g.path).sort()).toEqual(["/future-all", "/future-edited"]);
    for (const g of got) {
      expect(g.headers["service-event"]).toBe(future);
      expect(g.raw.toString("utf8")).toBe(event!.body);
    }
  });

  it("Test sends webhook.test to that endpoint alone, once, and Resend repeats the same event", async () => {
    failing = true;
    const ws = await newWorkspace("team");
    const a = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/test-a"), events: ["link.created"] });
    await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/test-b") });
    const before = receiver.requests.length;
    const t = await webhooks.sendTestEvent(a.id, ws.id);
    expect(t).toMatchObject({ attempted: true, delivered: false, done: true, statusCode: 500 });
    // the test event has one delivery, to endpoint a, already final (checked below): nothing else to wait for
    expect(await db().delivery.count({ where: { eventId: t.eventId } })).toBe(1);
    const got = receiver.requests.slice(before);
    expect(got.map((g) => g.path)).toEqual(["/test-a"]);
    expect(got[0].headers["service-event"]).toBe("webhook.test");
    expect(JSON.parse(got[0].raw.toString()).data).toEqual({ message: webhooks.TEST_MESSAGE });
    const testDelivery = await db().delivery.findFirstOrThrow({ where: { eventId: t.eventId } });
    expect(testDelivery).toMatchObject({ isTest: true, status: "failed", nextAttemptAt: null, attempts: 1 });
    // Not picked up by any scheduler.
    const { claimDueDeliveries } = await import("../../lib/webhooks/scheduler.ts");
    expect((await claimDueDeliveries(100, 1000)).map((c) => c.id)).not.toContain(testDelivery.id);
    // Test deliveries leave the endpoint's failure state alone.
    expect((await webhooks.getEndpoint(ws.id, a.id)).failingSince).toBeNull();
    expect((await webhooks.getEndpoint(ws.id, a.id)).lastSuccessAt).toBeNull();

    failing = false;
    const again = await webhooks.resendDelivery(ws.id, testDelivery.id);
    expect(again).toMatchObject({ attempted: true, delivered: true });
    // a test that got through is the endpoint's last delivery, and still no failure state
    expect(await webhooks.getEndpoint(ws.id, a.id)).toMatchObject({
      lastSuccessAt: expect.any(Date),
      failingSince: null,
      consecutiveFailures: 0,
    });
    const [first, second] = receiver.requests.slice(before).filter((q) => q.path === "/test-a");
    expect(second.raw.equals(first.raw)).toBe(true);
    expect(second.headers["service-delivery"]).toBe(t.eventId);
    const log = await webhooks.deliveryLog(ws.id, a.id, {});
    expect(log.deliveries[0].attemptLog.map((x) => [x.number, x.manual, x.outcome])).toEqual([
      [2, true, "delivered"],
      [1, true, "http_status"],
    ]);
  });

  it("Resend of a failed delivery is one attempt now with the same event id and body, logged", async () => {
    failing = true;
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/resend") });
    const { event, deliveryIds } = await emitEvent(ws);
    expect(await runToEnd(deliveryIds[0])).toBe(7);
    failing = false;
    const r = await webhooks.resendDelivery(ws.id, deliveryIds[0]);
    expect(r).toMatchObject({ attempted: true, delivered: true, outcome: "delivered" });
    const reqs = receiver.requests.filter((q) => q.path === "/resend");
    expect(reqs).toHaveLength(8);
    expect(reqs[7].raw.toString()).toBe(event!.body);
    expect(reqs[7].headers["service-delivery"]).toBe(event!.id);
    const d = await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } });
    expect(d).toMatchObject({ status: "delivered", attempts: 7 });
    const log = await webhooks.deliveryLog(ws.id, ep.id, { status: "delivered" });
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0].attemptLog[0]).toMatchObject({ number: 8, manual: true, outcome: "delivered" });
    expect((await webhooks.deliveryLog(ws.id, ep.id, { status: "failed" })).deliveries).toHaveLength(0);
    expect((await webhooks.deliveryLog(ws.id, ep.id, { type: "link.created" })).deliveries).toHaveLength(0);
    // A success clears the endpoint's failure state.
    expect(await webhooks.getEndpoint(ws.id, ep.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null });
  });
});

describe("retention", () => {
  it("removes events, deliveries and attempts older than 30 days", async () => {
    failing = false;
    const ws = await newWorkspace("team");
    await webhooks.createEndpoint(ws.id, { url: receiver.url() });
    const old = await emitEvent(ws);
    await webhooks.attemptDelivery(old.deliveryIds[0]);
    const fresh = await emitEvent(ws);
    await webhooks.attemptDelivery(fresh.deliveryIds[0]);
    const longAgo = new Date(Date.now() - 31 * 86_400_000);
    await db().webhookEvent.update({ where: { id: old.event!.id }, data: { createdAt: longAgo } });
    await db().deliveryAttempt.updateMany({ where: { deliveryId: old.deliveryIds[0] }, data: { startedAt: longAgo } });

    const r = await webhooks.pruneDeliveryLog();
    // this file's database holds no other event or attempt older than 30 days
    expect(r).toEqual({ events: 1, attempts: 1 });
    expect(await db().webhookEvent.findUnique({ where: { id: old.event!.id } })).toBeNull();
    expect(await db().delivery.findUnique({ where: { id: old.deliveryIds[0] } })).toBeNull();
    expect(await db().deliveryAttempt.count({ where: { deliveryId: old.deliveryIds[0] } })).toBe(0);
    expect(await db().delivery.findUnique({ where: { id: fresh.deliveryIds[0] } })).not.toBeNull();
    expect(await db().deliveryAttempt.count({ where: { deliveryId: fresh.deliveryIds[0] } })).toBe(1);
  });
});
