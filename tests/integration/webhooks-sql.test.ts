import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, db } from "../../lib/db/client.ts";
import { loadSendable, recordDeliveredAttempts, type DeliveredAttempt } from "../../lib/webhooks/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The delivery engine's two statements (lib/webhooks/sql.ts) against real PostgreSQL: what an
// attempt reads, and the one statement that records a batch of delivered attempts.

let drop: () => Promise<void>;
let seq = 0;

beforeAll(async () => {
  const d = await createTestDatabase();
  drop = d.drop;
  await useDatabaseInProcess(d.url);
});
afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await drop?.();
});

async function endpointWithDeliveries(
  n: number,
  endpoint: { consecutiveFailures?: number; failingSince?: Date | null; lastSuccessAt?: Date | null } = {},
) {
  const tag = ++seq;
  const ws = await db().workspace.create({ data: { slug: `sql-${tag}`, name: `SQL ${tag}`, plan: "business" } });
  const ep = await db().webhookEndpoint.create({
    data: { workspaceId: ws.id, url: `https://hooks.example.test/${tag}`, secret: `whsec_${tag}`, events: ["member.joined"], ...endpoint },
  });
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const ev = await db().webhookEvent.create({
      data: { id: `evt_sql_${tag}_${i}`, workspaceId: ws.id, type: "member.joined", createdAt: new Date(), body: `{"n":${i}}` },
    });
    ids.push((await db().delivery.create({ data: { eventId: ev.id, endpointId: ep.id, nextAttemptAt: new Date() } })).id);
  }
  return { ws, ep, ids };
}

const delivered = (deliveryId: number, endpointId: number, over: Partial<DeliveredAttempt> = {}): DeliveredAttempt => ({
  deliveryId,
  endpointId,
  number: 1,
  attempts: 1,
  startedAt: new Date(Date.now() - 20),
  durationMs: 12,
  statusCode: 204,
  responseBody: "ok",
  ...over,
});

describe("loadSendable", () => {
  it("reads each existing delivery with its event, endpoint, workspace state and attempts logged, and skips missing ids", async () => {
    const { ws, ep, ids } = await endpointWithDeliveries(2);
    await db().deliveryAttempt.create({
      data: { deliveryId: ids[1], number: 1, manual: true, startedAt: new Date(), durationMs: 5, outcome: "http_status", statusCode: 500 },
    });
    await db().workspace.update({ where: { id: ws.id }, data: { active: false } });
    const rows = await loadSendable(database().prismaPool, [ids[0], ids[1], 999_999_999]);
    expect(rows.sort((a, b) => a.id - b.id)).toEqual([
      {
        id: ids[0],
        endpointId: ep.id,
        attempts: 0,
        isTest: false,
        attemptCount: 0,
        event: { id: `evt_sql_${seq}_0`, type: "member.joined", body: '{"n":0}' },
        endpoint: { url: ep.url, secret: ep.secret, enabled: true, workspace: { active: false, plan: "business" } },
      },
      expect.objectContaining({ id: ids[1], attemptCount: 1, event: expect.objectContaining({ body: '{"n":1}' }) }),
    ]);
  });
});

describe("recordDeliveredAttempts", () => {
  it("logs every attempt, marks pending deliveries delivered and clears the endpoint's failure state, in one statement", async () => {
    const failingSince = new Date(Date.now() - 3_600_000);
    const { ep, ids } = await endpointWithDeliveries(3, { consecutiveFailures: 4, failingSince, lastSuccessAt: null });
    await db().delivery.update({ where: { id: ids[0] }, data: { lockedUntil: new Date(Date.now() + 60_000), attempts: 2 } });
    const now = new Date();
    const made = await recordDeliveredAttempts(
      database().prismaPool,
      ids.map((id, i) => delivered(id, ep.id, { number: i + 1, attempts: i === 0 ? 3 : 1, responseBody: `body ${i}` })),
      now,
      5000,
    );
    expect([...made].sort((a, b) => a - b)).toEqual(ids);
    const rows = await db().delivery.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    expect(
      rows.map((d) => ({ status: d.status, attempts: d.attempts, nextAttemptAt: d.nextAttemptAt, lockedUntil: d.lockedUntil })),
    ).toEqual([
      { status: "delivered", attempts: 3, nextAttemptAt: null, lockedUntil: null },
      { status: "delivered", attempts: 1, nextAttemptAt: null, lockedUntil: null },
      { status: "delivered", attempts: 1, nextAttemptAt: null, lockedUntil: null },
    ]);
    const log = await db().deliveryAttempt.findMany({ where: { deliveryId: { in: ids } }, orderBy: { deliveryId: "asc" } });
    expect(log.map((a) => [a.deliveryId, a.number, a.outcome, a.statusCode, a.manual, a.responseBody, a.durationMs])).toEqual(
      ids.map((id, i) => [id, i + 1, "delivered", 204, false, `body ${i}`, 12]),
    );
    const e = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } });
    expect(e).toMatchObject({ consecutiveFailures: 0, failingSince: null, lastSuccessAt: now });
  });

  it("leaves a delivery that is no longer pending as it is, but logs the attempt made", async () => {
    const { ep, ids } = await endpointWithDeliveries(1);
    await db().delivery.update({
      where: { id: ids[0] },
      data: { status: "cancelled", cancelReason: "the endpoint is disabled", nextAttemptAt: null },
    });
    const made = await recordDeliveredAttempts(database().prismaPool, [delivered(ids[0], ep.id)], new Date(), 5000);
    expect(made.size).toBe(0);
    expect(await db().delivery.findUniqueOrThrow({ where: { id: ids[0] } })).toMatchObject({ status: "cancelled", attempts: 0 });
    expect(await db().deliveryAttempt.count({ where: { deliveryId: ids[0] } })).toBe(1);
  });

  it("does not rewrite a healthy endpoint stamped within the interval, and does after it", async () => {
    const stamped = new Date(Date.now() - 1000);
    const { ep, ids } = await endpointWithDeliveries(2, { lastSuccessAt: stamped });
    await recordDeliveredAttempts(database().prismaPool, [delivered(ids[0], ep.id)], new Date(), 5000);
    expect((await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).lastSuccessAt).toEqual(stamped);
    const later = new Date(stamped.getTime() + 6000);
    await recordDeliveredAttempts(database().prismaPool, [delivered(ids[1], ep.id)], later, 5000);
    expect((await db().webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } })).lastSuccessAt).toEqual(later);
  });

  it("drops the attempt of a delivery removed meanwhile instead of failing the batch", async () => {
    const { ep, ids } = await endpointWithDeliveries(2);
    await db().delivery.delete({ where: { id: ids[0] } });
    const made = await recordDeliveredAttempts(
      database().prismaPool,
      ids.map((id) => delivered(id, ep.id)),
      new Date(),
      5000,
    );
    expect([...made]).toEqual([ids[1]]);
    expect(await db().deliveryAttempt.count({ where: { deliveryId: { in: ids } } })).toBe(1);
  });

  it("records batches for the same endpoints from many callers at once without a deadlock", async () => {
    const a = await endpointWithDeliveries(20, { consecutiveFailures: 1 });
    const b = await endpointWithDeliveries(20, { consecutiveFailures: 1 });
    // each batch touches both endpoints, listed in opposite orders
    const batches = Array.from({ length: 10 }, (_, i) => [
      ...[a, b].map((x) => delivered(x.ids[2 * i], x.ep.id)),
      ...[b, a].map((x) => delivered(x.ids[2 * i + 1], x.ep.id)),
    ]);
    const made = await Promise.all(batches.map((batch) => recordDeliveredAttempts(database().prismaPool, batch, new Date(), 0)));
    expect(made.reduce((n, s) => n + s.size, 0)).toBe(40);
    expect(await db().delivery.count({ where: { endpointId: { in: [a.ep.id, b.ep.id] }, status: "delivered" } })).toBe(40);
  });
});
