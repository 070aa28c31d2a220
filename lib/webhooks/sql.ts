import type pg from "pg";
import { dueCondition, dueTimes, endpointDueRows, PENDING_ENDPOINTS_CTE } from "./due.ts";
import { sendSlotsCtes, sendSlotValues } from "./pacing.ts";
import type { Queryable } from "../db/queryable.ts";

// The delivery engine's statements through `pg` (named, prepared): claiming due deliveries, reading
// what an attempt sends, and recording delivered attempts. Through Prisma they were a findUnique with three
// relations and an interactive transaction of four statements per delivery, whose client work
// cost more than the attempt's request (measured by `npm run bench:webhooks`); here each is one
// statement for a whole batch of attempts (batched.ts).

/** What an attempt needs: the delivery, its event's body and its endpoint's address, secret and state. */
export type Sendable = {
  id: number;
  endpointId: number;
  /** Automatic attempts made so far. */
  attempts: number;
  isTest: boolean;
  /** Attempts logged so far, automatic and manual: the next one is number attemptCount + 1. */
  attemptCount: number;
  event: { id: string; type: string; body: string };
  endpoint: { url: string; secret: string; enabled: boolean; workspace: { active: boolean; plan: string } };
};

type SendableRow = {
  id: number;
  endpointId: number;
  attempts: number;
  isTest: boolean;
  attemptCount: number;
  eventId: string;
  eventType: string;
  eventBody: string;
  url: string;
  secret: string;
  enabled: boolean;
  active: boolean;
  plan: string;
};

const SENDABLE = `
  select d.id, d."endpointId", d.attempts, d."isTest",
         (select count(*)::int from "DeliveryAttempt" a where a."deliveryId" = d.id) as "attemptCount",
         ev.id as "eventId", ev.type as "eventType", ev.body as "eventBody",
         e.url, e.secret, e.enabled, w.active, w.plan
    from "Delivery" d
    join "WebhookEvent" ev on ev.id = d."eventId"
    join "WebhookEndpoint" e on e.id = d."endpointId"
    join "Workspace" w on w.id = e."workspaceId"
   where d.id = any($1::int[])`;

/** The deliveries of `ids` that exist, each with what sending it needs (in no particular order). */
export async function loadSendable(q: Queryable, ids: number[]): Promise<Sendable[]> {
  const { rows } = await q.query<SendableRow>({ name: "webhook_sendable", text: SENDABLE, values: [ids] });
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpointId,
    attempts: r.attempts,
    isTest: r.isTest,
    attemptCount: r.attemptCount,
    event: { id: r.eventId, type: r.eventType, body: r.eventBody },
    endpoint: { url: r.url, secret: r.secret, enabled: r.enabled, workspace: { active: r.active, plan: r.plan } },
  }));
}

/** A delivered automatic attempt of a (non-test) delivery, to be recorded. */
export type DeliveredAttempt = {
  deliveryId: number;
  endpointId: number;
  /** The attempt's number in the log (Sendable.attemptCount + 1). */
  number: number;
  /** The delivery's automatic attempts with this one (Sendable.attempts + 1). */
  attempts: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number;
  responseBody: string;
};

// One statement, so atomic on its own: the attempts' log rows; each delivery still pending becomes
// delivered (one that a resend delivered or a disable cancelled meanwhile is left as it is); each
// endpoint's failure state is cleared and its last success stamped, unless it is healthy and was
// stamped in the last $5 ms (that skipped write keeps parallel attempts from queueing on the
// endpoint's row). Endpoint rows are locked in id order and FOR NO KEY UPDATE, as takeSendSlots
// (pacing.ts) does, so two processes recording for the same endpoints never deadlock, nor does a
// transaction inserting deliveries (its foreign key's KEY SHARE lock does not conflict with it).
const RECORD_DELIVERED = `
  with r as (
    select * from unnest($1::int[], $2::int[], $3::int[], $4::timestamptz[], $5::int[], $6::int[], $7::text[])
      as r("deliveryId", number, attempts, "startedAt", "durationMs", "statusCode", "responseBody")
  ), logged as (
    insert into "DeliveryAttempt" ("deliveryId", number, manual, "startedAt", "durationMs", "statusCode", outcome, error, "responseBody")
    select r."deliveryId", r.number, false, r."startedAt", r."durationMs", r."statusCode", 'delivered', null, r."responseBody"
      from r join "Delivery" d on d.id = r."deliveryId"
  ), delivered as (
    update "Delivery" d
       set attempts = r.attempts, status = 'delivered', "nextAttemptAt" = null, "lockedUntil" = null, "updatedAt" = $9
      from r
     where d.id = r."deliveryId" and d.status = 'pending'
    returning d.id
  ), stale as (
    select e.id from "WebhookEndpoint" e
     where e.id = any($8::int[])
       and (e."consecutiveFailures" > 0 or e."failingSince" is not null or e."lastSuccessAt" is null
            or e."lastSuccessAt" < $9::timestamptz - make_interval(secs => $10::float8 / 1000))
     order by e.id
       for no key update
  ), stamped as (
    update "WebhookEndpoint" e
       set "consecutiveFailures" = 0, "failingSince" = null, "lastSuccessAt" = $9
      from stale
     where e.id = stale.id
    returning e.id
  )
  select array(select id from delivered) as delivered`;

/**
 * Records delivered automatic attempts in one statement (see RECORD_DELIVERED). Returns the ids of
 * the deliveries this made delivered: the others were no longer pending. Attempts of deliveries
 * that no longer exist (their endpoint was removed) are dropped.
 */
export async function recordDeliveredAttempts(
  q: Queryable,
  attempts: DeliveredAttempt[],
  now: Date,
  stampEveryMs: number,
): Promise<Set<number>> {
  if (!attempts.length) return new Set();
  const col = <K extends keyof DeliveredAttempt>(k: K) => attempts.map((a) => a[k]);
  const endpoints = [...new Set(col("endpointId"))];
  const { rows } = await q.query<{ delivered: number[] }>({
    name: "webhook_record_delivered",
    text: RECORD_DELIVERED,
    values: [
      col("deliveryId"),
      col("number"),
      col("attempts"),
      // as text: pg's own Date formatting (local time, field by field) costs several µs a value
      attempts.map((a) => a.startedAt.toISOString()),
      col("durationMs"),
      col("statusCode"),
      col("responseBody"),
      endpoints,
      now,
      stampEveryMs,
    ],
  });
  return new Set(rows[0]?.delivered ?? []);
}

export type ClaimedDelivery = { id: number; endpointId: number };

/** A claimed delivery and its send slot (pacing.ts): its request may leave at slotAt (unix ms). */
export type SlottedClaim = ClaimedDelivery & { slotAt: number; intervalMs: number };

// The first $6 due deliveries in due order, ties by id (the order they were written in: a
// link.clicked backlog shares one nextAttemptAt), at most its room of each endpoint (this process's
// free places for it, else $9), skipping endpoints this process holds enough of ($4) and those
// whose send slots are taken beyond $5. Read per endpoint, from the partial index of pending
// deliveries by (endpointId, nextAttemptAt, id): the endpoints with pending deliveries
// (PENDING_ENDPOINTS_CTE, one index descent each), each one's first due delivery (its head), and
// the due deliveries of the endpoints with the first $6 heads, up to the $6th head when there are
// that many (no other endpoint, and no later delivery, can be among the first $6: those heads are
// $6 of them). So a claim reads one row per endpoint with pending deliveries and the rows it takes,
// never a backlog it leaves where it is: the walk over all due deliveries in due order it replaced
// read a held or paced endpoint's whole backlog on every claim (about 10 and 100 ms for 100,000
// waiting rows: `npm run bench:claim-plan`). The chosen rows are locked for this statement (one
// another claim holds at that moment is skipped: it is that claim's), checked due again, held
// (claimed), and their endpoints' send slots taken, one slot per claim in due order.
const CLAIM_DUE = `
  WITH RECURSIVE ${PENDING_ENDPOINTS_CTE}, eligible AS (
    SELECT p.id, greatest(coalesce(r.room, $9::int), 0) AS room
      FROM pending_endpoints p LEFT JOIN unnest($7::int[], $8::int[]) AS r(id, room) ON r.id = p.id
     WHERE p.id IS NOT NULL
       AND NOT (p.id = ANY($4::int[]))
       AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" e WHERE e.id = p.id AND e."sendSlotAt" > $5)
  ), heads AS (
    SELECT e.id, e.room, h."nextAttemptAt", h.id AS head
      FROM eligible e CROSS JOIN LATERAL (${endpointDueRows(`id, "nextAttemptAt"`, "e.id", "1")}) h
     WHERE e.room > 0
     ORDER BY h."nextAttemptAt", h.id
     LIMIT $6
  ), last_head AS (
    SELECT "nextAttemptAt", head FROM heads ORDER BY "nextAttemptAt", head OFFSET $6 - 1 LIMIT 1
  ), chosen AS (
    SELECT c.id
      FROM heads e LEFT JOIN last_head l ON true CROSS JOIN LATERAL (${endpointDueRows(
        `id, "nextAttemptAt"`,
        "e.id",
        "e.room",
        `("nextAttemptAt", id) <= (coalesce(l."nextAttemptAt", 'infinity'), coalesce(l.head, 2147483647))`,
      )}) c
     ORDER BY c."nextAttemptAt", c.id
     LIMIT $6
  ), candidates AS (
    SELECT d.id, d."endpointId", d."nextAttemptAt"
      FROM chosen c CROSS JOIN LATERAL (
        SELECT id, "endpointId", "nextAttemptAt" FROM "Delivery"
         WHERE id = c.id AND ${dueCondition(1, 2)}
           FOR UPDATE SKIP LOCKED
      ) d
  ), claimed AS (
    UPDATE "Delivery" d SET "lockedUntil" = $3
     WHERE d.id = ANY(ARRAY(SELECT id FROM candidates))
    RETURNING d.id, d."endpointId", d."nextAttemptAt"
  ), ranked AS (
    SELECT c.id, c."endpointId", row_number() OVER (PARTITION BY c."endpointId" ORDER BY c."nextAttemptAt", c.id) AS rn
      FROM claimed c
  ), counts AS (
    SELECT "endpointId" AS id, count(*)::int AS n FROM claimed GROUP BY "endpointId"
  ), ${sendSlotsCtes("counts", 10)}
  SELECT c.id, c."endpointId", s.first, s.interval_ms, c.rn::int
    FROM ranked c JOIN slotted s ON s.id = c."endpointId"
   ORDER BY s.first + make_interval(secs => (c.rn - 1) * s.interval_ms / 1000.0), c.id`;

/**
 * Claims up to `limit` due deliveries (due.ts) in due order, at most `rooms.get(endpoint)` (else
 * `defaultRoom`) of each endpoint, skipping `skipEndpoints` and endpoints whose send slots are
 * taken beyond `slotHorizon`; holds them until `until`, and takes one send slot per claim
 * (pacing.ts). One atomic statement; concurrent callers get disjoint rows. In slot order.
 */
export async function claimDue(
  q: Queryable,
  o: { now: Date; until: Date; limit: number; skipEndpoints: number[]; slotHorizon: Date; rooms: Map<number, number>; defaultRoom: number },
): Promise<SlottedClaim[]> {
  const { rows } = await q.query<{ id: number; endpointId: number; first: Date; interval_ms: number; rn: number }>({
    name: "webhook_claim_due",
    text: CLAIM_DUE,
    values: [
      ...dueTimes(o.now),
      o.until,
      o.skipEndpoints,
      o.slotHorizon,
      o.limit,
      [...o.rooms.keys()],
      [...o.rooms.values()],
      o.defaultRoom,
      ...sendSlotValues(o.now),
    ],
  });
  return rows.map((r) => ({
    id: r.id,
    endpointId: r.endpointId,
    slotAt: r.first.getTime() + (r.rn - 1) * Number(r.interval_ms),
    intervalMs: Number(r.interval_ms),
  }));
}

/** Ends the hold on claimed deliveries (they are due again at once for any scheduler). */
export async function releaseHolds(q: Queryable, ids: number[]): Promise<void> {
  if (ids.length)
    await q.query({ name: "webhook_release", text: `UPDATE "Delivery" SET "lockedUntil" = NULL WHERE id = ANY($1::int[])`, values: [ids] });
}
