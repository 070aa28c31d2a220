import { listen, type Listener } from "../db/listen.ts";
import { shared } from "../registry.ts";

// The process's cache of API key lookups (the one statement of authentication), so a request with a
// known key costs no database round trip for it. Kept exact by notifications: triggers (migration
// *_api_keys_notify) notify channel linkhop_api_keys when a key is added, revoked, expired or
// removed, or a workspace is switched off, renamed or changes plan, and every process drops its whole
// cache (such changes are rare). The cache is used only while this process LISTENs (lib/db/listen.ts):
// before the first LISTEN, and from a lost connection to the next LISTEN, every lookup goes to the
// database and nothing is kept (notifications sent meanwhile are lost). The API wrapper also has the
// per-request rate statement confirm that the cached key is still live (lib/ratelimit), so on a plan
// with a rate limit a revocation is honoured at once even before the notification arrives.
//
// Unknown hashes are kept too (as "no key"): a hash that was unknown becomes a key only by an insert,
// which notifies. Known and unknown hashes take the same path (a database lookup the first time,
// the cache afterwards), so the answer time still does not tell whether a key exists.

/** The channel of the triggers. */
export const KEYS_CHANNEL = "linkhop_api_keys";

/** Bound on the entries (unknown hashes cost memory too): a full cache starts over. */
const MAX_ENTRIES = 10_000;

type Cached<R> = { row: R | null };
type KeyCache = {
  entries: Map<string, Cached<unknown>>;
  /** true while the LISTEN connection is up */
  live: boolean;
  /** bumped on every drop, so a lookup that raced a notification is not kept */
  generation: number;
};

const cache = () => shared<KeyCache>("api-key-cache", () => ({ entries: new Map(), live: false, generation: 0 }));

/** Drops everything cached (a notification, a lost connection, or a change made by this process). */
export function forgetApiKeys(): void {
  const c = cache();
  c.entries.clear();
  c.generation++;
}

/**
 * `lookup` with the cache in front: a kept row is returned while it has not expired (expiry is the
 * one change that needs no write), a kept "no key" as null.
 */
export function cachedLookup<R extends { expiresAt: Date | null }>(
  lookup: (hash: string, now: Date) => Promise<R | null>,
): (hash: string, now: Date) => Promise<R | null> {
  return async (hash, now) => {
    const c = cache();
    if (c.live) {
      const hit = c.entries.get(hash) as Cached<R> | undefined;
      if (hit) return hit.row && (!hit.row.expiresAt || hit.row.expiresAt > now) ? hit.row : null;
    }
    const generation = c.generation;
    const row = await lookup(hash, now);
    if (c.live && c.generation === generation) {
      if (c.entries.size >= MAX_ENTRIES) c.entries.clear();
      c.entries.set(hash, { row });
    }
    return row;
  };
}

/** Entries kept now (for tests and metrics). */
export function cachedApiKeyCount(): number {
  return cache().entries.size;
}

/** LISTENs for key changes (the runtime of a process that serves the API); close() stops caching. */
export function startApiKeyCache(databaseUrl: string): Listener {
  const c = cache();
  const listener = listen(databaseUrl, KEYS_CHANNEL, "api-keys", {
    onPayload: () => forgetApiKeys(),
    onState: (live) => {
      forgetApiKeys();
      c.live = live;
    },
  });
  return {
    ready: listener.ready,
    close: async () => {
      c.live = false;
      forgetApiKeys();
      await listener.close();
    },
  };
}
