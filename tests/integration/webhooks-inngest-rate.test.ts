// The per-endpoint delivery rate on Inngest: the function (inngest/functions/deliver-webhook.ts)
// runs under @inngest/test with the real attempts, a real database and a real HTTPS receiver. The
// test engine replays the function from its start after every step, as Inngest does, and runs a
// mocked sleep's handler when the function reaches it: here a step.sleepUntil mock really waits
// until the date the function asked for (read through transformCtx), so the requests leave in real time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { InngestTestEngine, mockCtx } from "@inngest/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHit } from "../support/click-hits.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { ClickPipeline } from "../../lib/clicks/pipeline.ts";
import { postgresClickWriter } from "../../lib/clicks/writer.ts";
import { DEFAULT_PLANS, resetPlans } from "../../lib/plans/index.ts";
import { createLink } from "./redirects-helpers.ts";
import { emitEvent, eventually, newWorkspace, readClickedCursors, sleep, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let dir: string;
/** A plan like Team with a delivery rate of 10 a second (PLANS_FILE). */
const SLOW_PLAN = "slow";
let receiver: Receiver;
let db: typeof import("../../lib/db/client.ts").db;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let pacing: typeof import("../../lib/webhooks/pacing.ts");
let inngestPacing: typeof import("../../lib/webhooks/inngest-pacing.ts");
let fn: typeof import("../../inngest/functions/deliver-webhook.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-inngest-rate-"));
  const plansFile = path.join(dir, "plans.json");
  fs.writeFileSync(
    plansFile,
    JSON.stringify({ plans: { ...DEFAULT_PLANS, [SLOW_PLAN]: { ...DEFAULT_PLANS.team, webhookRatePerSecond: 10 } } }),
  );
  // Inngest itself is not reached: the test runs the function (no hand-off, no built-in scheduler)
  useEnv({
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_TIMEOUT_MS: "5000",
    INNGEST_EVENT_KEY: undefined,
    INNGEST_BASE_URL: undefined,
    PLANS_FILE: plansFile,
  });
  resetPlans();
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  webhooks = await import("../../lib/webhooks/index.ts");
  pacing = await import("../../lib/webhooks/pacing.ts");
  inngestPacing = await import("../../lib/webhooks/inngest-pacing.ts");
  fn = await import("../../inngest/functions/deliver-webhook.ts");
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
  delete process.env.PLANS_FILE;
  resetPlans();
  fs.rmSync(dir, { recursive: true, force: true });
});

type StepTools = { sleepUntil: (id: string, until: Date) => Promise<void> };
type InngestFunction = typeof import("../../inngest/functions/deliver-webhook.ts").deliverWebhook;

/**
 * One run of `func` for the delivery. Every sleep is mocked (an unmocked one hangs the engine): a
 * step.sleepUntil waits until its date, a step.sleep returns at once. `executions` counts how often
 * the function was executed (from its start: replays), `sleptUntil` what it asked step.sleepUntil for.
 */
function run(func: InngestFunction, deliveryId: number, endpointId: number) {
  const sleptUntil = new Map<string, { until: number; calledAt: number }>();
  let executions = 0;
  const engine = new InngestTestEngine({
    function: func,
    events: [{ name: "linkhop/webhook.delivery.requested", data: { deliveryId, endpointId } }],
    transformCtx: (ctx) => {
      executions++;
      const step = ctx.step as unknown as StepTools;
      const real = step.sleepUntil;
      step.sleepUntil = (id, until) => {
        if (!sleptUntil.has(id)) sleptUntil.set(id, { until: new Date(until).getTime(), calledAt: Date.now() });
        return real(id, until);
      };
      return mockCtx(ctx);
    },
  });
  const steps = Array.from({ length: 12 }, (_, i) => [
    { id: `wait-${i + 1}`, handler: () => undefined },
    { id: `slot-${i + 1}`, handler: () => sleep(Math.max(0, (sleptUntil.get(`slot-${i + 1}`)?.until ?? 0) - Date.now())) },
  ]).flat();
  return { result: engine.execute({ steps }), sleptUntil, executions: () => executions };
}

/** Inngest's per-endpoint concurrency: at most `limit` steps of the endpoint's runs execute at once (sleeping runs hold none). */
function concurrencyLimit(limit: number) {
  let running = 0;
  const queue: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    else running++;
    try {
      return await work();
    } finally {
      const next = queue.shift();
      if (next) next();
      else running--;
    }
  };
}

const bodyOf = (r: { raw: Buffer }) => JSON.parse(r.raw.toString("utf8"));

async function slotOf(endpointId: number): Promise<number> {
  const ep = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
  return ep.sendSlotAt?.getTime() ?? 0;
}

/** `n` counted clicks on a new link of a new workspace on SLOW_PLAN, each owing a delivery to the endpoint at `route`. */
async function clickFlood(n: number, route: string) {
  const ws = await newWorkspace(SLOW_PLAN);
  const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", route), events: ["link.clicked"] });
  const link = await createLink(ws.id, { code: `flood${route.replace(/\W/g, "-")}` });
  const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), { geo: () => null });
  for (let i = 0; i < n; i++) pipeline.add(clickHit(ws.id, link.id, i), true);
  await pipeline.flush();
  await readClickedCursors(pool, n); // all of them as deliveries at once (the app writes a second's worth at a time)
  const deliveries = await db().delivery.findMany({ where: { endpointId: ep.id }, orderBy: { id: "asc" }, select: { id: true } });
  expect(deliveries).toHaveLength(n);
  return { ws, ep, deliveryIds: deliveries.map((d) => d.id) };
}

/** The deployed function's steps, run at most `limit` at once. */
async function limitedFunction(limit: number) {
  const inSlots = concurrencyLimit(limit);
  const { inngestClient } = await import("../../lib/webhooks/inngest-client.ts");
  return fn.createDeliverWebhook(
    inngestClient(),
    (id) => inSlots(() => inngestPacing.attemptPaced(id)),
    (id, slot) => inSlots(() => inngestPacing.attemptInSlot(id, slot)),
  );
}

/** What the receiver got at `route`: each event once, and the most requests within one second. */
function received(route: string) {
  const got = receiver.requests.filter((r) => r.path === route);
  const perSecond = new Map<number, number>();
  for (const r of got) perSecond.set(Math.floor(r.at / 1000), (perSecond.get(Math.floor(r.at / 1000)) ?? 0) + 1);
  return { count: got.length, distinct: new Set(got.map((r) => bodyOf(r).id)).size, maxPerSecond: Math.max(...perSecond.values()) };
}

describe("per-endpoint delivery rate on Inngest", () => {
  // Two runs of the same check: with Inngest's per-endpoint concurrency modelled (8 steps at once:
  // slots stay near, waited for inside the step), and with every run taking its slot at once (most
  // slots seconds ahead: the runs sleep to them). The harness alone sends well over 10 a second.
  for (const how of ["steps at once as Inngest allows (PER_ENDPOINT_CONCURRENCY)", "every run taking its slot at once"]) {
    it(`60 clicks to one endpoint at 10/s through the function never exceed 10 in any second at the receiver, each sent once (${how})`, async () => {
      const concurrency = how.startsWith("every") ? Infinity : fn.PER_ENDPOINT_CONCURRENCY;
      const route = `/clicks-${concurrency}`;
      const { ep, deliveryIds } = await clickFlood(60, route);
      const func = await limitedFunction(concurrency);
      const runs = deliveryIds.map((id) => run(func, id, ep.id));
      const results = await Promise.all(runs.map((r) => r.result));
      expect(results.map((r) => r.error)).toEqual(Array(60).fill(undefined));
      expect(results.filter((r) => (r.result as { delivered?: boolean }).delivered)).toHaveLength(60);
      if (concurrency === Infinity) expect(runs.filter((r) => r.sleptUntil.size > 0).length).toBeGreaterThan(40);
      expect(received(route)).toMatchObject({ count: 60, distinct: 60 });
      expect(received(route).maxPerSecond).toBeLessThanOrEqual(10);
    }, 60_000);
  }

  // Both engines at once on one endpoint (as when the built-in scheduler runs in one process and
  // Inngest in another): their slots add up to the rate, so the k-th request to arrive comes no
  // earlier than k - 1 slot intervals after the flood started, and as every request leaves within
  // SLOT_LATENESS_MS of its slot (a later one takes a new slot), no second at the receiver holds more
  // than the rate.
  it("the built-in scheduler and the function sending to one endpoint at once take turns in its slots: 60 clicks at 10/s never exceed the rate, each sent once", async () => {
    const route = "/both-engines";
    const { ep, deliveryIds } = await clickFlood(60, route);
    const start = Date.now();
    const scheduler = webhooks.startBuiltInScheduler();
    try {
      // the scheduler claims its share first (on a busy machine the function could otherwise take all)
      await eventually(async () => scheduler.attempts() > 0, 10_000, "the scheduler's first attempt");
      const func = await limitedFunction(fn.PER_ENDPOINT_CONCURRENCY);
      const results = await Promise.all(deliveryIds.map((id) => run(func, id, ep.id).result));
      expect(results.map((r) => r.error)).toEqual(Array(60).fill(undefined));
      await eventually(async () => received(route).count >= 60, 30_000, "60 deliveries");
      await eventually(async () => scheduler.inFlight() === 0, 10_000, "the scheduler idle");
      // both engines sent some of them
      const byFunction = results.filter((r) => (r.result as { attempted?: boolean }).attempted).length;
      expect(byFunction).toBeGreaterThan(0);
      expect(scheduler.attempts()).toBeGreaterThan(0);
      expect(byFunction + scheduler.attempts()).toBe(60);
    } finally {
      await scheduler.stop();
    }
    expect(received(route)).toMatchObject({ count: 60, distinct: 60 });
    const intervalMs = (1000 * pacing.PACING_MARGIN) / 10;
    const arrivals = receiver.requests
      .filter((r) => r.path === route)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(arrivals.filter((at, k) => at < start + k * intervalMs)).toEqual([]);
    expect(received(route).maxPerSecond).toBeLessThanOrEqual(10);
  }, 60_000);

  it("behind a backlog the run sleeps to its slot (step.sleepUntil) and a replay takes no second slot", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/backlog") });
    const { deliveryIds } = await emitEvent(ws);
    // a backlog: 100 slots taken ahead (by the built-in scheduler, say, in another process), 2 s at 50/s
    const taken = (await pacing.takeSendSlots(new Map([[ep.id, 100]]))).get(ep.id)!;
    const slotAt = await slotOf(ep.id);
    expect(slotAt - Date.now()).toBeGreaterThan(inngestPacing.WAIT_IN_STEP_MS);

    const r = run(fn.deliverWebhook, deliveryIds[0], ep.id);
    const { result, ctx, error } = await r.result;
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ delivered: true, done: true });
    expect(ctx.step.run.mock.calls.map((c) => c[0])).toEqual(["attempt-1", "attempt-1-in-slot"]);
    expect(ctx.step.sleepUntil.mock.calls.map((c) => c[0])).toEqual(["slot-1"]);
    // the first step returned the slot at once instead of waiting for it
    const slept = r.sleptUntil.get("slot-1")!;
    expect(Math.abs(slept.until - (slotAt - inngestPacing.WAKE_BEFORE_SLOT_MS))).toBeLessThanOrEqual(1);
    expect(slotAt - slept.calledAt).toBeGreaterThan(inngestPacing.WAIT_IN_STEP_MS);
    // the request left in its slot, not before
    const got = receiver.requests.filter((q) => q.path === "/backlog");
    expect(got).toHaveLength(1);
    expect(got[0].at).toBeGreaterThanOrEqual(slotAt);
    // executed from its start after each step (replays), yet one slot taken: the endpoint's next is one interval on
    expect(r.executions()).toBeGreaterThanOrEqual(3);
    expect(Math.abs((await slotOf(ep.id)) - slotAt - taken.intervalMs)).toBeLessThanOrEqual(1);
  }, 30_000);

  it("a resend is not paced: it leaves at once while the endpoint's slots are taken a minute ahead, and takes none", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/resend") });
    const { deliveryIds } = await emitEvent(ws);
    await pacing.takeSendSlots(new Map([[ep.id, 3000]])); // 63 s at 50/s
    const slotAt = await slotOf(ep.id);
    expect(slotAt - Date.now()).toBeGreaterThan(60_000);

    const sentAt = Date.now();
    const resent = await webhooks.resendDelivery(ws.id, deliveryIds[0]);
    expect(resent).toMatchObject({ attempted: true, delivered: true });
    const got = await eventually(async () => receiver.requests.find((q) => q.path === "/resend"), 10_000, "the resend");
    expect(got.at - sentAt).toBeLessThan(10_000);
    expect(await slotOf(ep.id)).toBe(slotAt);

    // the Test button neither
    const test = await webhooks.sendTestEvent(ep.id, ws.id);
    expect(test).toMatchObject({ attempted: true, delivered: true });
    expect(await slotOf(ep.id)).toBe(slotAt);
  }, 30_000);
});
