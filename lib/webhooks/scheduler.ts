import { config } from "../config/index.ts";
import { database } from "../db/client.ts";
import { readSendables } from "./attempt-batches.ts";
import { attemptDelivery, LOCK_MARGIN_MS, type Prefetched } from "./attempt.ts";
import { RECORD_WITHIN_MS } from "./record-attempt.ts";
import { SLOT_HORIZON_MS, SLOT_LATENESS_MS, waitForSendSlot } from "./pacing.ts";
import { claimDue, releaseHolds, type SlottedClaim } from "./sql.ts";
import { log } from "../log/index.ts";

// The built-in scheduler: runs the retry schedule inside the app process when Inngest is not
// configured. Due deliveries are claimed from PostgreSQL (FOR UPDATE SKIP LOCKED, then held with
// lockedUntil for longer than an attempt can take), so several app processes on one database
// never send one attempt twice, and a crashed process's claims simply expire. Everything it
// knows is in the rows: a restart picks up where the last process stopped.

/**
 * Claims up to `limit` due deliveries (due.ts: pending, nextAttemptAt passed, not held) and takes
 * their send slots (pacing.ts), at most `rooms.get(endpoint)` (else `defaultRoom`) of each endpoint,
 * skipping `skip` and endpoints whose send slots are taken further than SLOT_HORIZON_MS ahead, and
 * holds them for `lockMs`. One atomic statement; concurrent callers get disjoint rows.
 */
export async function claimDueDeliveries(
  limit: number,
  lockMs: number,
  o: { skip?: number[]; rooms?: Map<number, number>; defaultRoom?: number; now?: Date } = {},
): Promise<SlottedClaim[]> {
  const now = o.now ?? new Date();
  return claimDue(database().prismaPool, {
    now,
    until: new Date(now.getTime() + lockMs),
    limit,
    skipEndpoints: o.skip ?? [],
    slotHorizon: new Date(now.getTime() + SLOT_HORIZON_MS),
    rooms: o.rooms ?? new Map(),
    defaultRoom: o.defaultRoom ?? limit,
  });
}

/** Gives claimed deliveries back (they are due again at once for any scheduler). */
export async function releaseClaims(ids: number[]): Promise<void> {
  await releaseHolds(database().prismaPool, ids);
}

export type SchedulerOptions = {
  /** How often to look for due deliveries when nothing wakes the scheduler. */
  pollMs?: number;
  /** Attempts in flight (plus claimed and waiting) in this process. */
  maxInFlight?: number;
  /** Attempts in flight per endpoint in this process. */
  perEndpoint?: number;
  /** Claims of one endpoint that may wait in this process for one of its perEndpoint turns. */
  queuedPerEndpoint?: number;
  /** Rows claimed per statement at most. */
  batch?: number;
};

export const SCHEDULER_DEFAULTS = { pollMs: 500, maxInFlight: 64, perEndpoint: 8, queuedPerEndpoint: 24, batch: 50 };

export type Scheduler = {
  wake: (endpointIds?: readonly number[]) => void;
  stop: () => Promise<void>;
  inFlight: () => number;
  attempts: () => number;
};

/**
 * `slotAt`: the endpoint's send slot (pacing.ts), before which the request does not leave; `intervalMs`: the spacing of its slots;
 * `prefetched`: the claim's rows as read right after it (one statement per claim, not one per attempt).
 */
type Claim = SlottedClaim & { claimedAt: number; prefetched: Prefetched };

/**
 * Wake-ups (a hand-off after every change that wrote deliveries, an attempt's end with more due)
 * start a claim at most this often while a request of this process is out or waiting for a turn:
 * under a stream of creates each would otherwise cost a claim statement, mostly finding the
 * endpoint's queue already full. The rows are the queue, so a later claim loses nothing.
 */
export const WAKE_SPACING_MS = 20;

/**
 * ... and at most this often when none is: an idle scheduler claims at once, so a create's delivery
 * leaves within a few ms of its 201 (`npm run bench:webhooks`), even right after the claim that
 * sent the one before it.
 */
export const IDLE_WAKE_SPACING_MS = 2;

/** How long a wake-up waits before its claim: until the spacing above has passed since the last claim started. */
export function wakeDelay(lastClaimAt: number, now: number, idle: boolean): number {
  return Math.max(0, lastClaimAt + (idle ? IDLE_WAKE_SPACING_MS : WAKE_SPACING_MS) - now);
}

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
  // More was due than we took (the claim's limit or the process's capacity): look again when an
  // attempt ends.
  let backlog = false;
  // An endpoint holding this many claims (in flight and waiting) has enough for now: claims skip it
  // until its count drops below, then it is refilled. Claims that skip a large backlog scan its
  // rows, so they are made once per half queue, not after every attempt.
  const refillBelow = o.perEndpoint + Math.ceil(o.queuedPerEndpoint / 2);
  const held = (endpointId: number) => (runningPer.get(endpointId) ?? 0) + (waitingPer.get(endpointId)?.length ?? 0);
  // Per endpoint, the send slots this process's claims took and no request has used yet, earliest
  // first. A claim's slot is the endpoint's, not the claim's own: a request takes the earliest one
  // still usable when its turn comes. Tied to its own claim, a request that had waited for a turn
  // behind slow ones (a loaded machine) found its slot long past, took a new one after all those
  // already taken (up to SLOT_HORIZON_MS ahead) and, first in line, held up every request behind it
  // until then, which then missed their slots too: the endpoint stayed at a third of its rate for
  // the rest of its backlog (tests/integration/webhooks-rate.test.ts), its slots passing unused.
  const unusedSlots = new Map<number, number[]>();
  // Per endpoint, the end of the last request's wait for its slot: the next picks its slot after it.
  const paceLines = new Map<number, Promise<unknown>>();
  let attempts = 0;
  // when the last claim started, and whether a wake-up is already on its way (WAKE_SPACING_MS)
  let lastClaimAt = 0;
  let wakePending = false;

  const run = (c: Claim) => {
    attempts++;
    runningPer.set(c.endpointId, (runningPer.get(c.endpointId) ?? 0) + 1);
    // The endpoint's turn ends when its request does: recording the result needs no connection to
    // the receiver, so the endpoint's next claim starts while this one's result is written.
    let turnEnded = false;
    const endTurn = () => {
      if (turnEnded) return;
      turnEnded = true;
      const before = held(c.endpointId);
      const n = (runningPer.get(c.endpointId) ?? 1) - 1;
      if (n > 0) runningPer.set(c.endpointId, n);
      else runningPer.delete(c.endpointId);
      startWaiting(c.endpointId);
      if (before >= refillBelow && held(c.endpointId) < refillBelow) wake();
    };
    const p = attemptDelivery(c.id, { claimed: true, prefetched: c.prefetched, beforeSend: () => pace(c), afterSend: endTurn }).finally(
      () => {
        running.delete(p);
        endTurn();
        if (backlog) wake();
      },
    );
    running.add(p);
  };

  /** Starts the endpoint's waiting claims while it has free turns (a stale claim is given back instead). */
  const startWaiting = (endpointId: number) => {
    const queue = waitingPer.get(endpointId);
    while (queue?.length && (runningPer.get(endpointId) ?? 0) < o.perEndpoint) {
      const next = queue.shift()!;
      waitingCount--;
      if (fresh(next) && !stopped) run(next);
      else void releaseClaims([next.id]).catch(() => {});
    }
    if (queue && !queue.length) waitingPer.delete(endpointId);
  };

  // the tick in progress, which stop() waits for: its claims are released before the pools close
  let ticked: Promise<void> = Promise.resolve();
  const tick = (): Promise<void> => {
    if (ticking) {
      again = true;
      return ticked;
    }
    ticking = true;
    return (ticked = claimAndStart());
  };
  const claimAndStart = async () => {
    try {
      do {
        again = false;
        const free = o.maxInFlight - running.size - waitingCount;
        if (stopped || free <= 0) {
          backlog = free <= 0;
          break;
        }
        const room = o.perEndpoint + o.queuedPerEndpoint;
        lastClaimAt = Date.now();
        const heldNow = [...new Set([...runningPer.keys(), ...waitingPer.keys()])].map((id) => [id, held(id)] as const);
        const claimedAt = Date.now();
        const claimed = await claimDueDeliveries(Math.min(o.batch, free), lockMs, {
          skip: heldNow.filter(([, n]) => n >= refillBelow).map(([id]) => id),
          rooms: new Map(heldNow.map(([id, n]) => [id, Math.max(0, room - n)])),
          defaultRoom: room,
        });
        if (stopped) {
          await releaseClaims(claimed.map((c) => c.id));
          break;
        }
        // what sending them needs, read once for all of them (attempt.ts uses it while fresh)
        const prefetched: Prefetched = { at: Date.now(), rows: readSendables(claimed.map((c) => c.id)) };
        prefetched.rows.catch(() => {}); // an attempt reads again when this failed
        // Queued first, then started as turns allow: attempts that ended while the claim ran freed
        // turns that these take now.
        for (const row of claimed) {
          const c = { ...row, claimedAt, prefetched };
          const queue = waitingPer.get(c.endpointId);
          if (queue) queue.push(c);
          else waitingPer.set(c.endpointId, [c]);
          waitingCount++;
          const slots = unusedSlots.get(c.endpointId);
          if (slots) slots.push(c.slotAt);
          else unusedSlots.set(c.endpointId, [c.slotAt]);
        }
        for (const endpointId of new Set(claimed.map((c) => c.endpointId))) unusedSlots.get(endpointId)!.sort((a, b) => a - b);
        for (const endpointId of new Set(claimed.map((c) => c.endpointId))) startWaiting(endpointId);
        // Endpoints skipped as having enough are woken for when they run low (run's endTurn).
        // A full claim may have left more due: look again (a claim fills its limit from every
        // endpoint with room, so a shorter one took all there was).
        backlog = claimed.length === Math.min(o.batch, free);
        if (backlog) again = true;
      } while (again && !stopped);
    } catch (e) {
      log("webhooks").error({ err: e }, "scheduler: claiming due deliveries failed");
    } finally {
      ticking = false;
    }
  };

  /**
   * The earliest unused slot of the endpoint that a request taking its turn now can still leave in
   * (pacing.ts: no earlier than an interval after this process's previous request, and at most
   * SLOT_LATENESS_MS after its slot); the ones before it are lost.
   */
  const ownSlot = (endpointId: number, intervalMs: number): number | undefined => {
    const slots = unusedSlots.get(endpointId);
    const earliestTurn = Date.now() + intervalMs;
    while (slots?.length && earliestTurn - slots[0] > SLOT_LATENESS_MS) slots.shift();
    const at = slots?.shift();
    if (slots && !slots.length) unusedSlots.delete(endpointId);
    return at;
  };

  // This process's requests to one endpoint leave one at a time, each in a send slot (pacing.ts),
  // picked when the request before it has left. With no usable slot of its own (one long past),
  // pacing.ts takes a new one.
  const pace = (c: Claim): Promise<void> => {
    const previous = paceLines.get(c.endpointId) ?? Promise.resolve();
    const mine = previous.then(() =>
      waitForSendSlot(
        { endpointId: c.endpointId, at: ownSlot(c.endpointId, c.intervalMs) ?? Number.NEGATIVE_INFINITY, intervalMs: c.intervalMs },
        () => ownSlot(c.endpointId, c.intervalMs),
      ),
    );
    const settled = mine.catch(() => {});
    paceLines.set(c.endpointId, settled);
    void settled.then(() => paceLines.get(c.endpointId) === settled && paceLines.delete(c.endpointId));
    return mine;
  };

  /**
   * Claims soon (wakeDelay: at once when idle, at most once per WAKE_SPACING_MS while busy). A
   * wake-up for new deliveries of `endpointIds`, each of which this process already holds enough
   * claims of (refillBelow, the claim's `skip`), claims nothing: the claim would only skip them,
   * every WAKE_SPACING_MS under a stream of creates to a slow receiver. The rows wait in the table;
   * the endpoint's own refill (run's endTurn) claims them in due order.
   */
  function wake(endpointIds?: readonly number[]) {
    if (stopped || wakePending) return;
    if (endpointIds?.length && endpointIds.every((id) => held(id) >= refillBelow)) return;
    wakePending = true;
    const started = () => {
      wakePending = false;
      void tick();
    };
    // idle: no request out and none waiting for a turn (an attempt whose request has ended may
    // still be recording its result, RECORD_SPACING_MS)
    const wait = wakeDelay(lastClaimAt, Date.now(), runningPer.size === 0 && waitingCount === 0);
    if (wait > 0) setTimeout(started, wait).unref();
    else setImmediate(started);
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
      unusedSlots.clear();
      await releaseClaims(waiting).catch(() => {});
      await ticked;
      await Promise.allSettled([...running]);
      log("webhooks").info({ attempts }, `built-in scheduler stopped after ${attempts} attempts`);
    },
  };
}
