import { shared } from "./registry.ts";

// Work started after an answer was sent (webhook hand-offs to Inngest, notices and reset mails):
// a clean exit (server shutdown, the end of an admin CLI command) waits for it instead of cutting
// it off. One set for the process (lib/registry.ts).

const work = () => shared("background-work", () => new Set<Promise<unknown>>());

/** Tracks `p` until it settles; returns it. */
export function inBackground<T>(p: Promise<T>): Promise<T> {
  const all = work();
  const tracked = p.finally(() => all.delete(tracked));
  all.add(tracked);
  tracked.catch(() => {});
  return tracked;
}

/** Resolves when everything started in the background so far has settled (including work it started meanwhile). */
export async function backgroundSettled(): Promise<void> {
  for (let all = work(); all.size;) await Promise.allSettled([...all]);
}
