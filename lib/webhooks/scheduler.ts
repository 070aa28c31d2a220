import { config } from "../config/index.ts";
import { db } from "../db/client.ts";
import { attemptDelivery, LOCK_MARGIN_MS, RECORD_WITHIN_MS } from "./attempt.ts";
import { dueSql } from "./due.ts";
import { SLOT_HORIZON_MS, takeSendSlots } from "./pacing.ts";
import { log } from "../log/index.ts";

// The built-in scheduler: runs the retry schedule inside the app process when Inngest is not
// configured. Due deliveries are claimed from PostgreSQL (FOR UPDATE SKIP LOCKED, then held with
// lockedUntil for longer than an attempt can take), so several app processes on one database
// never send one attempt twice, and a crashed process's claims simply expire. Everything it
// knows is in the rows: a restart picks up where the last process stopped.

export type ClaimedDelivery = { id: number; endpointId: number };

/**
 * Claims up to `limit` due deliveries (due.ts: pending, nextAttemptAt passed, not held), skipping
 * `skipEndpoints` and endpoints whose send slots are taken further than SLOT_HORIZON_MS ahead
 * (pacing.ts), and holds them for `lockMs`. One atomic statement; concurrent callers get disjoint rows.
 */
export async function claimDueDeliveries(
  limit: number,
  lockMs: number,
  skipEndpoints: number[] = [],
  now = new Date(),
): Promise<ClaimedDelivery[]> {
  const until = new Date(now.getTime() + lockMs);
  return db().$queryRaw<ClaimedDelivery[]>`
    UPDATE "Delivery" SET "lockedUntil" = ${until}
    WHERE id IN (
      SELECT id FROM "Delivery"
      WHERE ${dueSql(now)}
        AND NOT ("endpointId" = ANY(${skipEndpoints}::int[]))
        AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" e
                         WHERE e.id = "Delivery"."endpointId" AND e."sendSlotAt" > ${new Date(now.getTime() + SLOT_HORIZON_MS)})
      ORDER BY "nextAttemptAt"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    RETURNING id, "endpointId"`;
}

/** Gives claimed deliveries back (they are due again at once for any scheduler). */
export async function releaseClaims(ids: number[]): Promise<void> {
  if (ids.length) await db().delivery.updateMany({ where: { id: { in: ids } }, data: { lockedUntil: null } });
}

export type SchedulerOptions = {
  /** How often to look for due deliveries when nothing wakes the scheduler. */
  pollMs?: number;
  /** Attempts in flight (plus claimed and waiting) in this process. */
  maxInFlight?: number;
  /** Attempts in flight per endpoint in this process; as many more may wait, claimed, for a slot. */
  perEndpoint?: number;
  /** Rows claimed per statement at most. */
  batch?: number;
};

export const SCHEDULER_DEFAULTS = { pollMs: 500, maxInFlight: 64, perEndpoint: 8, batch: 50 };

export type Scheduler = { wake: () => void; stop: () => Promise<void>; inFlight: () => number; attempts: () => number };

/** `slotAt`: the endpoint's send slot (pacing.ts), before which the request does not leave; `intervalMs`: the spacing of its slots. */
type Claim = ClaimedDelivery & { claimedAt: number; slotAt: number; intervalMs: number };

export function startBuiltInScheduler(options: SchedulerOptions = {}): Scheduler {
  const o = { ...SCHEDULER_DEFAULTS, ...options };
  const timeoutMs = config().WEBHOOK_TIMEOUT_MS;
  const lockMs = timeoutMs + LOCK_MARGIN_MS;
  // A waiting claim runs only while its hold still covers a whole attempt: reading the delivery
  // (5 s of room), the request (timeoutMs) and recording its result (up to RECORD_WITHIN_MS plus
  // one transaction's timeout, 5 s).
  const fresh = (c: Claim) => Date.now() - c.claimedAt < lockMs - timeoutMs - RECORD_WITHIN_MS - 10_000;
  const runningPer = new Map<number, number>();
  const waitingPer = new Map<number, Claim[]>();
  const running = new Set<Promise<unknown>>();
  let waitingCount = 0;
  let stopped = false;
  let ticking = false;
  let again = false;
  // More was due than we took (capacity or per-endpoint cap): look again when a slot frees.
  let backlog = false;
  // Endpoints seen in the last claim: sizes the next one, so a backlog on a few endpoints is not
  // claimed in bulk only to be given back.
  let lastEndpoints = o.batch;
  let attempts = 0;

  const run = (c: Claim) => {
    attempts++;
    runningPer.set(c.endpointId, (runningPer.get(c.endpointId) ?? 0) + 1);
    const p = attemptDelivery(c.id, { claimed: true, beforeSend: () => pace(c) }).finally(() => {
      running.delete(p);
      const n = (runningPer.get(c.endpointId) ?? 1) - 1;
      if (n > 0) runningPer.set(c.endpointId, n);
      else runningPer.delete(c.endpointId);
      const next = waitingPer.get(c.endpointId)?.shift();
      if (next) {
        waitingCount--;
        if (fresh(next) && !stopped) run(next);
        else void releaseClaims([next.id]).catch(() => {});
      }
      if (backlog) wake();
    });
    running.add(p);
  };

  const tick = async () => {
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        const free = o.maxInFlight - running.size - waitingCount;
        if (stopped || free <= 0) {
          backlog = free <= 0;
          break;
        }
        const saturated = [...runningPer].filter(([, n]) => n >= o.perEndpoint).map(([id]) => id);
        const limit = Math.min(o.batch, free, (lastEndpoints + 1) * o.perEndpoint);
        const claimedAt = Date.now();
        const claimed = await claimDueDeliveries(limit, lockMs, saturated);
        if (claimed.length) lastEndpoints = new Set(claimed.map((c) => c.endpointId)).size;
        const excess: number[] = [];
        const now: Claim[] = [];
        const later: Claim[] = [];
        const held = new Map<number, { running: number; queued: number }>();
        for (const row of claimed) {
          const c = { ...row, claimedAt, slotAt: 0, intervalMs: 0 };
          const h = held.get(c.endpointId) ?? {
            running: runningPer.get(c.endpointId) ?? 0,
            queued: waitingPer.get(c.endpointId)?.length ?? 0,
          };
          held.set(c.endpointId, h);
          if (stopped) excess.push(c.id);
          else if (h.running < o.perEndpoint) (h.running++, now.push(c));
          else if (h.queued < o.perEndpoint) (h.queued++, later.push(c));
          else excess.push(c.id);
        }
        await assignSendSlots([...now, ...later]).catch(async (e) => {
          // not run: given back at once rather than held until the claims expire
          await releaseClaims([...now, ...later].map((c) => c.id)).catch(() => {});
          throw e;
        });
        for (const c of now) run(c);
        for (const c of later) {
          waitingPer.set(c.endpointId, [...(waitingPer.get(c.endpointId) ?? []), c]);
          waitingCount++;
        }
        await releaseClaims(excess);
        // Endpoints at their cap were skipped: whatever they have due waits for a free slot.
        backlog = claimed.length === limit || excess.length > 0 || saturated.length > 0;
        if (claimed.length === limit && excess.length < claimed.length) again = true;
      } while (again && !stopped);
    } catch (e) {
      log("webhooks").error({ err: e }, "scheduler: claiming due deliveries failed");
    } finally {
      ticking = false;
    }
  };

  /** Each accepted claim takes its endpoint's next send slot, in claim (due) order: one statement per claim. */
  async function assignSendSlots(accepted: Claim[]) {
    const counts = new Map<number, number>();
    for (const c of accepted) counts.set(c.endpointId, (counts.get(c.endpointId) ?? 0) + 1);
    const slots = await takeSendSlots(counts);
    const used = new Map<number, number>();
    for (const c of accepted) {
      const s = slots.get(c.endpointId);
      const i = used.get(c.endpointId) ?? 0;
      used.set(c.endpointId, i + 1);
      c.slotAt = s ? s.firstAt + i * s.intervalMs : 0;
      c.intervalMs = s?.intervalMs ?? 0;
    }
  }

  // This process's requests to one endpoint leave one at a time, each no earlier than its slot and
  // a whole interval after the previous one actually left: attempts that were held up (a slow
  // read, a busy event loop) do not catch up in a burst. One settled promise kept per endpoint.
  const lastSent = new Map<number, Promise<number>>();
  function pace(c: Claim): Promise<void> {
    const mine = (lastSent.get(c.endpointId) ?? Promise.resolve(0)).then(async (previous) => {
      const wait = Math.max(c.slotAt, previous + c.intervalMs) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return Date.now();
    });
    lastSent.set(c.endpointId, mine);
    return mine.then(() => undefined);
  }

  function wake() {
    if (!stopped) setImmediate(() => void tick());
  }

  const timer = setInterval(() => void tick(), o.pollMs);
  timer.unref();
  wake();

  return {
    wake,
    inFlight: () => running.size,
    attempts: () => attempts,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      // Claims still waiting go back at once, for another process (or the next start).
      const waiting = [...waitingPer.values()].flat().map((c) => c.id);
      waitingPer.clear();
      waitingCount = 0;
      await releaseClaims(waiting).catch(() => {});
      await Promise.allSettled([...running]);
      log("webhooks").info({ attempts }, `built-in scheduler stopped after ${attempts} attempts`);
    },
  };
}
