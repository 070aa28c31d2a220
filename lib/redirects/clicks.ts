import { positiveNumber } from "../config/env.ts";
import { flushClickBatch, prunePasswordGuesses, redirectPool, type ClickBatch } from "./sql.ts";
import { GUESS_WINDOW_SECONDS } from "./password.ts";

// Click counting off the request path. Uncapped links are counted in memory and written in one
// batch at most FLUSH_INTERVAL later (and on shutdown); capped links are counted in the database
// at once (countCappedClick) and only their per-day totals wait for the batch.

export const DAY_MS = 86_400_000;

export class ClickRecorder {
  private totals = new Map<number, number>();
  private days = new Map<number, Map<number, number>>();
  private flushing: Promise<void> = Promise.resolve();
  private failures = 0;

  /** `alreadyCounted`: the link's total was updated atomically (capped links); only the day total remains. */
  record(linkId: number, alreadyCounted: boolean, now: number): void {
    if (!alreadyCounted) this.totals.set(linkId, (this.totals.get(linkId) ?? 0) + 1);
    const day = Math.floor(now / DAY_MS);
    let perLink = this.days.get(day);
    if (!perLink) this.days.set(day, (perLink = new Map()));
    perLink.set(linkId, (perLink.get(linkId) ?? 0) + 1);
  }

  get pending(): number {
    let n = 0;
    for (const perLink of this.days.values()) for (const c of perLink.values()) n += c;
    return n;
  }

  /** Writes everything recorded so far; flushes never overlap. A failed batch is kept for the next one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (!this.days.size && !this.totals.size) return;
    const batch: ClickBatch = { totals: this.totals, days: this.days };
    this.totals = new Map();
    this.days = new Map();
    try {
      await flushClickBatch(redirectPool(), batch);
      this.failures = 0;
    } catch (e) {
      this.failures++;
      console.error(`[redirects] click flush failed (${this.failures} in a row), kept for the next try: ${(e as Error).message}`);
      this.merge(batch);
    }
  }

  private merge(batch: ClickBatch) {
    for (const [id, n] of batch.totals) this.totals.set(id, (this.totals.get(id) ?? 0) + n);
    for (const [day, perLink] of batch.days) {
      let mine = this.days.get(day);
      if (!mine) this.days.set(day, (mine = new Map()));
      for (const [id, n] of perLink) mine.set(id, (mine.get(id) ?? 0) + n);
    }
  }
}

const g = globalThis as { __linkhopClicks?: ClickRecorder };

/** The process's one recorder (the custom server's module graph and any other share it). */
export function clickRecorder(): ClickRecorder {
  return (g.__linkhopClicks ??= new ClickRecorder());
}

/**
 * Background job (lib/jobs.ts): flush counted clicks every CLICK_FLUSH_MS (default 1000) and prune
 * ended password-guess windows every 10 minutes. The returned stop flushes one last time.
 */
export async function startClickFlushing(intervalMs = positiveNumber(process.env.CLICK_FLUSH_MS, 1000)): Promise<() => Promise<void>> {
  const recorder = clickRecorder();
  const flushTimer = setInterval(() => void recorder.flush(), Math.max(50, intervalMs));
  const pruneTimer = setInterval(() => {
    prunePasswordGuesses(redirectPool(), GUESS_WINDOW_SECONDS).catch((e) =>
      console.error(`[redirects] pruning password guesses failed: ${e.message}`),
    );
  }, 10 * 60_000);
  flushTimer.unref();
  pruneTimer.unref();
  return async () => {
    clearInterval(flushTimer);
    clearInterval(pruneTimer);
    await recorder.flush();
  };
}
