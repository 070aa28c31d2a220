import { database } from "../db/client.ts";
import { planOf, plans, webhookRatePerSecond } from "../plans/index.ts";
import { shared } from "../registry.ts";

// Each endpoint's delivery rate (the plan's webhookRatePerSecond): every automatic attempt takes one
// send slot from the endpoint's row (WebhookEndpoint.sendSlotAt), slots 1/rate apart, and its
// request leaves no earlier than its slot: the built-in scheduler takes them at claim time
// (scheduler.ts), Inngest's function in its attempt step (inngest-pacing.ts). The slots live in the
// database, so the rate holds across processes and across the two engines; a backlog simply waits,
// in order, for its slots, while other endpoints' deliveries go on. Resend and Test take none.

/**
 * Slots are spaced a little wider than 1/rate: an attempt reaches the receiver a variable few
 * milliseconds after its start, and a receiver counting per second must never see more than the rate.
 */
export const PACING_MARGIN = 1.05;

/** How far ahead an endpoint's slots may be taken before its due deliveries are left unclaimed. */
export const SLOT_HORIZON_MS = 500;

export type SendSlots = { firstAt: number; intervalMs: number };

/**
 * SQL: the CTEs `wanted` and `slotted`, which take consecutive send slots for each row (id, n) of
 * the relation `counts` (n slots for endpoint id), locking the endpoint rows in id order (so two
 * statements taking slots of the same endpoints never deadlock) with FOR NO KEY UPDATE, the lock an
 * UPDATE of these columns takes anyway: FOR UPDATE would also wait for (and could deadlock with)
 * transactions inserting deliveries of the endpoint, whose foreign key holds a KEY SHARE lock. `slotted` returns per endpoint its
 * first slot (`first`) and their spacing (`interval_ms`). Parameters $p to $p+4 are sendSlotValues().
 */
export function sendSlotsCtes(counts: string, p: number): string {
  return `wanted AS (
      SELECT e.id, w.n, greatest(e."sendSlotAt", $${p}::timestamptz) AS first,
             $${p + 1}::float8 / coalesce(r.rate, $${p + 2}::float8) AS interval_ms
        FROM ${counts} AS w
        JOIN "WebhookEndpoint" e ON e.id = w.id
        JOIN "Workspace" ws ON ws.id = e."workspaceId"
        LEFT JOIN unnest($${p + 3}::text[], $${p + 4}::float8[]) AS r(plan, rate) ON r.plan = ws.plan
       ORDER BY e.id
       FOR NO KEY UPDATE OF e
    ), slotted AS (
      UPDATE "WebhookEndpoint" e
         SET "sendSlotAt" = wanted.first + make_interval(secs => wanted.n * wanted.interval_ms / 1000.0)
        FROM wanted
       WHERE e.id = wanted.id
      RETURNING e.id, wanted.first, wanted.interval_ms
    )`;
}

/** The parameters of sendSlotsCtes: now, the slot spacing's numerator, the fallback rate, the plans' rates. */
export function sendSlotValues(now: Date): unknown[] {
  const table = Object.values(plans());
  return [now, 1000 * PACING_MARGIN, webhookRatePerSecond(planOf("")), table.map((p) => p.id), table.map((p) => webhookRatePerSecond(p))];
}

const TAKE_SEND_SLOTS = `
    WITH ${sendSlotsCtes("(SELECT * FROM unnest($1::int[], $2::int[]) AS u(id, n))", 3)}
    SELECT id, first, interval_ms FROM slotted`;

/** PostgreSQL aborted the statement to break a deadlock (40P01), or as a serialization failure (40001). */
const TRY_AGAIN = new Set(["40P01", "40001"]);
const TAKE_TRIES = 3;

/**
 * Takes `count` consecutive send slots for each endpoint, in one statement: returns, per endpoint,
 * the first slot's time (unix ms) and the spacing; the i-th attempt may start at firstAt + i * intervalMs.
 * The statement waits for the endpoints' rows, and while it waits it is first in a row's queue, so
 * PostgreSQL may pick it as the victim of a deadlock among the row's holder and the statements
 * queued behind it (claims and records, which lock several rows); aborted so, it is tried again
 * (from a new "now"): failing instead would fail the attempt that asked, and hold its delivery
 * until the claim expired.
 */
export async function takeSendSlots(counts: Map<number, number>): Promise<Map<number, SendSlots>> {
  if (!counts.size) return new Map();
  const ids = [...counts.keys()];
  for (let tries = 1; ; tries++) {
    try {
      const { rows } = await database().prismaPool.query<{ id: number; first: Date; interval_ms: number }>({
        name: "webhook_take_send_slots",
        text: TAKE_SEND_SLOTS,
        values: [ids, ids.map((id) => counts.get(id)!), ...sendSlotValues(new Date())],
      });
      return new Map(rows.map((r) => [r.id, { firstAt: r.first.getTime(), intervalMs: Number(r.interval_ms) }]));
    } catch (e) {
      if (tries >= TAKE_TRIES || !TRY_AGAIN.has((e as { code?: string })?.code ?? "")) throw e;
    }
  }
}

/** One send slot of an endpoint: the request may leave at `at` (unix ms); the endpoint's slots are `intervalMs` apart. */
export type SendSlot = { endpointId: number; at: number; intervalMs: number };

/**
 * A request leaves at most this long after its slot; a later one takes a new slot first. Every
 * request then leaves within [slot - 2 ms, slot + SLOT_LATENESS_MS], so whichever processes send
 * them, a second at the receiver holds at most rate * (1,000 + 2 + SLOT_LATENESS_MS) / (1,000 *
 * PACING_MARGIN) + 1 requests: never more than the rate while that stays under 1,050 ms.
 */
export const SLOT_LATENESS_MS = 40;
/** A process so busy that its requests miss their slots this many times in a row sends anyway. */
const MAX_RETAKES = 3;

/**
 * Waits until the request may leave: no earlier than its slot and a whole interval after this
 * process's previous request to the endpoint had its turn (its slot, or when it actually left if
 * later), whichever engine sent it: attempts that were held up (a late wake-up, a slow read, a busy
 * event loop) do not reach the receiver in a burst with the ones on time, and one that would leave
 * more than SLOT_LATENESS_MS after its slot takes a new one. A wait under a millisecond is not
 * slept (a timer lasts a millisecond or more, which would cap an endpoint near 1,000/s whatever its
 * rate): the request leaves up to 2 ms early (with Date.now()'s whole milliseconds, the injectable
 * clock), and the next turn still counts from this one's, so early starts never add up
 * (PACING_MARGIN covers them). One settled promise kept per endpoint, in the process registry.
 * `ownSlot`: a slot of the endpoint this process took earlier and no request uses, that is not yet
 * SLOT_LATENESS_MS past (the built-in scheduler's claims take them in advance), tried before a new
 * one is taken: a new one comes after every slot already taken, up to SLOT_HORIZON_MS ahead.
 */
export async function waitForSendSlot(slot: SendSlot, ownSlot?: () => number | undefined): Promise<void> {
  for (let retakes = 0, s = slot; ; retakes++) {
    await takeTurn(s);
    if (Date.now() - s.at <= SLOT_LATENESS_MS || retakes === MAX_RETAKES) return;
    const own = ownSlot?.();
    if (own !== undefined) {
      s = { ...s, at: own };
      continue;
    }
    const fresh = (await takeSendSlots(new Map([[s.endpointId, 1]]))).get(s.endpointId);
    if (!fresh) return;
    s = { endpointId: s.endpointId, at: fresh.firstAt, intervalMs: fresh.intervalMs };
  }
}

function takeTurn(slot: SendSlot): Promise<number> {
  const turns = shared("send-times", () => new Map<number, Promise<number>>());
  const mine = (turns.get(slot.endpointId) ?? Promise.resolve(0)).then(async (previous) => {
    const now = Date.now();
    // a previous turn "in the future" (the clock was set back) holds nothing up
    const turn = Math.max(slot.at, Math.min(previous, now) + slot.intervalMs);
    if (turn - now >= 1) await new Promise((resolve) => setTimeout(resolve, turn - now));
    return Math.max(turn, Date.now());
  });
  turns.set(slot.endpointId, mine);
  return mine;
}
