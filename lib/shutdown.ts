// Work started in the background (webhook attempts, click flushes) registers here so a clean exit
// (server shutdown, the admin CLI finishing) can wait for it.
type Drain = () => Promise<void>;
const g = globalThis as { __linkhopDrains?: Set<Drain> };
const drains = (g.__linkhopDrains ??= new Set());

export function onDrain(fn: Drain): () => void {
  drains.add(fn);
  return () => drains.delete(fn);
}

export async function drainPendingWork(): Promise<void> {
  await Promise.allSettled([...drains].map((fn) => fn()));
}
