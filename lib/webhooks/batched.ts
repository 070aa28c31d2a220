// Group commit for the delivery engine: many attempts in flight each ask for one row to be read or
// written, and one statement serves all who asked while the previous one ran. An idle engine pays no
// wait (the first call runs at once, alone); a busy one pays one round trip per batch instead of one
// per delivery. Svix's worker and PostgreSQL's own group commit work the same way.

export type Batched<I, O> = {
  (item: I): Promise<O>;
  /** Calls waiting for the next run (for tests). */
  queued: () => number;
};

/**
 * `run` gets up to `maxBatch` items and returns one result per item, in order; when it throws, every
 * caller of that batch gets the error. At most one run at a time: calls made meanwhile wait for the
 * next one, which starts as soon as the current one ends.
 */
export function batched<I, O>(run: (items: I[]) => Promise<O[]>, maxBatch = 100): Batched<I, O> {
  type Waiting = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;

  const next = async () => {
    if (running || !queue.length) return;
    running = true;
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
