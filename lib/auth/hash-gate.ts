import { metrics } from "../metrics/index.ts";
import { shared } from "../registry.ts";

// How many password hashes (scrypt, about 50 ms of CPU each, on Node's small shared thread pool)
// this process computes at once, and who goes first. Without it, 4 bulk creates of 100 password
// rows each put hundreds of hashes in the thread pool's one queue, and a sign-in waited 8 s behind
// them. Now at most HASH_SLOTS run at a time (they fill both cores; more would only queue inside
// the pool, ahead of its file and DNS work), and a waiting interactive hash (a sign-in, a sign-up,
// a password change, a visitor's password for a link) takes the next free slot before any bulk
// hash (passwords of links created by the API or the app). So a sign-in waits behind at most the
// few hashes running, plus other people's sign-ins, never behind a bulk job.

export type HashLane = "interactive" | "bulk";
export const HASH_SLOTS = 2;

type Gate = { running: number; waiting: Record<HashLane, (() => void)[]> };

function gate(): Gate {
  return shared<Gate>("password-hashing", () => ({ running: 0, waiting: { interactive: [], bulk: [] } }));
}

/** Runs `hash` when a slot is free for `lane` (interactive first). */
export async function withHashSlot<T>(lane: HashLane, hash: () => Promise<T>): Promise<T> {
  const g = gate();
  const queueAhead = g.waiting.interactive.length + (lane === "bulk" ? g.waiting.bulk.length : 0);
  if (g.running < HASH_SLOTS && queueAhead === 0) g.running++;
  else await new Promise<void>((resolve) => g.waiting[lane].push(resolve)); // the slot is handed over
  try {
    metrics().auth.passwordHashes.inc({ lane });
    return await hash();
  } finally {
    const next = g.waiting.interactive.shift() ?? g.waiting.bulk.shift();
    if (next) next();
    else g.running--;
  }
}

/** Hashes running and waiting now, per lane (tests, metrics). */
export function hashGateState(): { running: number; waiting: Record<HashLane, number> } {
  const g = gate();
  return { running: g.running, waiting: { interactive: g.waiting.interactive.length, bulk: g.waiting.bulk.length } };
}
