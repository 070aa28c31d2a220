// Group commit for the delivery engine: many attempts in flight each ask for one row to be read or
// written, and one statement serves all who asked while the previous one ran. An idle engine pays no
// wait (the first call runs at once, alone); a busy one pays one round trip per batch instead of one
// per delivery. Svix's worker and PostgreSQL's own group commit work the same way.
//
// Attempts paced to an endpoint's rate end a few milliseconds apart, each after the previous
// statement has ended, so without more they would still each pay a round trip. `spacingMs` makes
// runs start at least that far apart: a call arriving sooner waits for the next run with those that
// arrive meanwhile (an idle engine still runs the first call at once).

export type Batched<I, O> = {
  (item: I): Promise<O>;
  /** Calls waiting for the next run (for tests). */
  queued: () => number;
};

/**
 * `run` gets up to `maxBatch` items and returns one result per item, in order; when it throws, every
 * caller of that batch gets the error. At most one run at a time: calls made meanwhile wait for the
 * next one, which starts as soon as the current one ends and `spacingMs` have passed since it started.
 */
export function batched<I, O>(run: (items: I[]) => Promise<O[]>, maxBatch = 100, spacingMs = 0): Batched<I, O> {
  type Waiting = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;
  let spacing: ReturnType<typeof setTimeout> | null = null;
  let lastStart = Number.NEGATIVE_INFINITY;

  const next = async () => {
    if (running || spacing || !queue.length) return;
    const wait = lastStart + spacingMs - performance.now();
    if (wait > 0) {
      spacing = setTimeout(() => {
        spacing = null;
        void next();
      }, wait);
      return;
    }
    running = true;
    lastStart = performance.now();
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    try {
      const out = await run(batch.map((w) => w.item));
      if (out.length !== batch.length) throw new Error(`a batch of ${batch.length} gave ${out.length} results`);
      batch.forEach((w, i) => w.resolve(out[i]));
    } catch (e) {
      for (const w of batch) w.reject(e);
    } finally {
      running = false;
      void next();
    }
  };

  const call = (item: I) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      void next();
    });
  return Object.assign(call, { queued: () => queue.length });
}
