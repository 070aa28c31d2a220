import { database } from "../db/client.ts";
import type { Prisma } from "../db/generated/client.ts";

// The one rule of when a delivery is due for its next automatic attempt, in the three forms its
// users need: SQL for the built-in scheduler's claim (sql.ts), a Prisma filter for the claim
// of a single delivery (attempt.ts), and a plain predicate. They are kept side by side so they
// change together; tests/integration/webhooks-due.test.ts checks that all three agree.
//
// Due: pending, not a test delivery, its nextAttemptAt reached (by `now` + `slackMs`: a sleeping
// scheduler wakes a little early), and not held by another attempt (lockedUntil unset or passed).

/** An automatic attempt may run this much before its nextAttemptAt (sleeps wake a little early). */
export const DUE_SLACK_MS = 1000;

export type DueFields = { status: string; isTest: boolean; nextAttemptAt: Date | null; lockedUntil: Date | null };

export function isDue(d: DueFields, now: Date, slackMs = 0): boolean {
  return (
    d.status === "pending" &&
    !d.isTest &&
    d.nextAttemptAt !== null &&
    d.nextAttemptAt.getTime() <= now.getTime() + slackMs &&
    (d.lockedUntil === null || d.lockedUntil.getTime() < now.getTime())
  );
}

/**
 * The rule as a condition on "Delivery" columns for a `pg` statement, whose parameters number
 * `nowAt` and `dueByAt` hold the two times of dueTimes().
 */
export function dueCondition(nowAt: number, dueByAt: number): string {
  return `status = 'pending'
        AND "isTest" = false
        AND "nextAttemptAt" <= $${dueByAt}::timestamptz
        AND ("lockedUntil" IS NULL OR "lockedUntil" < $${nowAt}::timestamptz)`;
}

/**
 * The endpoints with a pending delivery (automatic ones: not a test), as the CTE `pending_endpoints`
 * of a WITH RECURSIVE statement: a skip scan of the pending deliveries' index by endpoint (migration
 * *_delivery_pending_by_endpoint), one index descent per endpoint, however many deliveries each has
 * waiting (ordered as that index is, so no other index of Delivery serves it). Its last row's id is
 * null. A statement then reads each endpoint's due deliveries in due order from the same index
 * (dueCondition and "endpointId" = the endpoint's), so what it reads is bounded by the endpoints and
 * what it takes, never by a backlog it leaves where it is.
 */
export const PENDING_ENDPOINTS_CTE = `pending_endpoints AS (
    (SELECT "endpointId" AS id FROM "Delivery" WHERE status = 'pending' AND "isTest" = false
      ORDER BY "endpointId", "nextAttemptAt" LIMIT 1)
    UNION ALL
    SELECT (SELECT d."endpointId" FROM "Delivery" d
             WHERE d.status = 'pending' AND d."isTest" = false AND d."endpointId" > p.id
             ORDER BY d."endpointId", d."nextAttemptAt" LIMIT 1)
      FROM pending_endpoints p WHERE p.id IS NOT NULL
  )`;

/**
 * An endpoint's due deliveries in due order, ties by id, as a sub-select for a LATERAL join: the
 * `columns` of at most `limit` rows of endpoint `endpoint` (SQL expressions), `also` a further
 * condition, read from the index of pending deliveries by endpoint. dueCondition's parameters are
 * $1 and $2.
 */
export function endpointDueRows(columns: string, endpoint: string, limit: string, also = ""): string {
  return `SELECT ${columns} FROM "Delivery"
         WHERE "endpointId" = ${endpoint} AND ${dueCondition(1, 2)}${also ? ` AND ${also}` : ""}
         ORDER BY "nextAttemptAt", id
         LIMIT ${limit}`;
}

/** The two times dueCondition compares with: now, and the latest nextAttemptAt that counts as due. */
export function dueTimes(now: Date, slackMs = 0): [now: Date, dueBy: Date] {
  return [now, new Date(now.getTime() + slackMs)];
}

/** The rule as a Prisma filter on Delivery. */
export function dueWhere(now: Date, slackMs = 0): Prisma.DeliveryWhereInput {
  return {
    status: "pending",
    isTest: false,
    nextAttemptAt: { lte: new Date(now.getTime() + slackMs) },
    OR: [{ lockedUntil: null }, { lockedUntil: { lt: now } }],
  };
}

/**
 * How long the oldest due delivery has been due, in seconds (0 when none is): a scheduler that
 * keeps up holds this near 0 (linkhop_webhook_oldest_due_seconds, read at scrape time).
 */
export async function oldestDueSeconds(now = new Date()): Promise<number> {
  const { rows } = await database().prismaPool.query<{ due: Date | null }>({
    name: "webhook_oldest_due",
    text: `WITH RECURSIVE ${PENDING_ENDPOINTS_CTE}
      SELECT min(f."nextAttemptAt") AS due
        FROM pending_endpoints p CROSS JOIN LATERAL (${endpointDueRows(`"nextAttemptAt"`, "p.id", "1")}) f
       WHERE p.id IS NOT NULL`,
    values: dueTimes(now),
  });
  const due = rows[0]?.due;
  return due ? Math.max(0, (now.getTime() - due.getTime()) / 1000) : 0;
}
