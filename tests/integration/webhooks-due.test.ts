// The "delivery is due" rule exists as SQL (the built-in scheduler's claim), as a Prisma filter
// (the claim of one delivery before an attempt) and as a predicate (lib/webhooks/due.ts): on the
// same rows in PostgreSQL, all three pick the same ones, boundaries included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { emitEvent, newWorkspace, useEnv } from "./webhooks-helpers.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
});

afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

type Case = {
  name: string;
  status?: "pending" | "delivered" | "failed" | "cancelled";
  isTest?: boolean;
  /** nextAttemptAt relative to now, in ms; null for none. */
  next: number | null;
  /** lockedUntil relative to now, in ms; null for none. */
  lock?: number | null;
};

const CASES: Case[] = [
  { name: "past due, not held", next: -1000 },
  { name: "due exactly now", next: 0 },
  { name: "due in 500 ms", next: 500 },
  { name: "due in exactly the slack", next: 1000 },
  { name: "due just after the slack", next: 1001 },
  { name: "no next attempt", next: null },
  { name: "delivered", status: "delivered", next: -1000 },
  { name: "failed", status: "failed", next: -1000 },
  { name: "cancelled", status: "cancelled", next: -1000 },
  { name: "test delivery", isTest: true, next: -1000 },
  { name: "held by another attempt", next: -1000, lock: 10_000 },
  { name: "held until exactly now", next: -1000, lock: 0 },
  { name: "hold expired", next: -1000, lock: -1 },
];

describe("the due rule", () => {
  it("SQL, Prisma filter and predicate pick the same deliveries", async () => {
    const { createEndpoint } = await import("../../lib/webhooks/index.ts");
    const { database, db } = await import("../../lib/db/client.ts");
    const { dueCondition, dueTimes, dueWhere, isDue } = await import("../../lib/webhooks/due.ts");
    const ws = await newWorkspace("team");
    await createEndpoint(ws.id, { url: "http://127.0.0.1:9/due" });
    const now = new Date(Date.now() + 60_000);
    const at = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(now.getTime() + ms));

    const ids = new Map<number, string>();
    for (const c of CASES) {
      const { deliveryIds } = await emitEvent(ws);
      expect(deliveryIds).toHaveLength(1);
      await db().delivery.update({
        where: { id: deliveryIds[0] },
        data: { status: c.status ?? "pending", isTest: c.isTest ?? false, nextAttemptAt: at(c.next), lockedUntil: at(c.lock) },
      });
      ids.set(deliveryIds[0], c.name);
    }
    const all = [...ids.keys()];
    const names = (rows: { id: number }[]) => rows.map((r) => ids.get(r.id)!).sort();

    const expected: Record<number, string[]> = {
      0: ["due exactly now", "hold expired", "past due, not held"],
      1000: ["due exactly now", "due in 500 ms", "due in exactly the slack", "hold expired", "past due, not held"],
    };
    for (const slackMs of [0, 1000]) {
      const rows = await db().delivery.findMany({ where: { id: { in: all } } });
      const byPredicate = names(rows.filter((d) => isDue(d, now, slackMs)));
      const byWhere = names(await db().delivery.findMany({ where: { id: { in: all }, ...dueWhere(now, slackMs) }, select: { id: true } }));
      const bySql = names(
        (
          await database().prismaPool.query<{ id: number }>(
            `SELECT id FROM "Delivery" WHERE id = ANY($1::int[]) AND ${dueCondition(2, 3)}`,
            [all, ...dueTimes(now, slackMs)],
          )
        ).rows,
      );
      expect(byPredicate, `predicate, slack ${slackMs}`).toEqual(expected[slackMs].sort());
      expect(byWhere, `Prisma filter, slack ${slackMs}`).toEqual(byPredicate);
      expect(bySql, `SQL, slack ${slackMs}`).toEqual(byPredicate);
    }
  });
});
