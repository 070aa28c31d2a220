import type { DomainPages, ServedDomain } from "./domain-pages.ts";
import type { RedirectLink } from "./lifecycle.ts";

// The in-process cache of resolved links, keyed by (domainKey, code), negative answers included.
// Freshness comes from PostgreSQL NOTIFY (notify.ts): a change to a link drops its entry in every
// process within milliseconds. TTLs are only a safety net: long while the listener is connected,
// one second while it is not (so an edit still shows within 1 s during an outage), short for
// "not found" answers. Time-based states (startsOn, expiresOn) are decided per request, not cached.

export type CacheOptions = {
  /** positive entries while listening */
  ttlMs: number;
  /** "no such link" entries while listening */
  negativeTtlMs: number;
  /** every entry while the listener is down */
  degradedTtlMs: number;
  maxEntries: number;
};

export const DEFAULT_CACHE_OPTIONS: CacheOptions = { ttlMs: 10 * 60_000, negativeTtlMs: 5_000, degradedTtlMs: 1_000, maxEntries: 200_000 };

type Entry = { link: RedirectLink | null; loadedAt: number };

export type LinkLoader = (domainKey: number, code: string) => Promise<RedirectLink | null>;

export class LinkCache {
  private byDomain = new Map<number, Map<string, Entry>>();
  private inflight = new Map<string, Promise<RedirectLink | null>>();
  private size = 0;
  /** set by the listener: true while NOTIFY messages are being received */
  live = false;

  constructor(
    private readonly load: LinkLoader,
    private readonly opts: CacheOptions = DEFAULT_CACHE_OPTIONS,
  ) {}

  /** The cached answer when fresh: a link, null ("no such link"), or undefined (ask fetch()). */
  get(domainKey: number, code: string, now: number): RedirectLink | null | undefined {
    const entry = this.byDomain.get(domainKey)?.get(code);
    if (!entry) return undefined;
    const ttl = !this.live ? this.opts.degradedTtlMs : entry.link ? this.opts.ttlMs : this.opts.negativeTtlMs;
    return now - entry.loadedAt < ttl ? entry.link : undefined;
  }

  /**
   * Loads from the database (one load per key at a time) and caches the answer unless the key was
   * invalidated while loading. When the database fails, a stale entry is better than no answer.
   */
  async fetch(domainKey: number, code: string): Promise<RedirectLink | null> {
    const key = `${domainKey}:${code}`;
    let pending = this.inflight.get(key);
    if (!pending) {
      const loading = this.load(domainKey, code);
      pending = loading;
      this.inflight.set(key, loading);
      loading.then(
        (link) => {
          // an invalidation during the load removed us from inflight: the answer may be stale
          if (this.inflight.get(key) !== loading) return;
          this.inflight.delete(key);
          this.store(domainKey, code, link);
        },
        () => {
          if (this.inflight.get(key) === loading) this.inflight.delete(key);
        },
      );
    }
    try {
      return await pending;
    } catch (e) {
      const stale = this.byDomain.get(domainKey)?.get(code);
      if (stale) return stale.link;
      throw e;
    }
  }

  private store(domainKey: number, code: string, link: RedirectLink | null) {
    let codes = this.byDomain.get(domainKey);
    if (!codes) this.byDomain.set(domainKey, (codes = new Map()));
    if (!codes.has(code)) this.size++;
    else codes.delete(code); // re-insert at the end: eviction is oldest-loaded first
    codes.set(code, { link, loadedAt: Date.now() });
    if (this.size > this.opts.maxEntries) this.evictOldest(codes);
  }

  private evictOldest(preferred: Map<string, Entry>) {
    // entries are in load order per domain; dropping the oldest of the busiest map is good enough
    let victim = preferred;
    for (const codes of this.byDomain.values()) if (codes.size > victim.size) victim = codes;
    const first = victim.keys().next();
    if (!first.done) {
      victim.delete(first.value);
      this.size--;
    }
  }

  invalidate(domainKey: number, code: string) {
    this.inflight.delete(`${domainKey}:${code}`);
    const codes = this.byDomain.get(domainKey);
    if (codes?.delete(code)) this.size--;
  }

  clear() {
    this.inflight.clear();
    this.byDomain.clear();
    this.size = 0;
  }

  get entries(): number {
    return this.size;
  }
}

/**
 * Verified, active custom domains, mirrored whole (host -> id and the domain's pages,
 * domain-pages.ts) and reloaded on every change.
 */
export class DomainTable {
  private byHost = new Map<string, ServedDomain>();
  private generation = 0;

  constructor(private readonly load: () => Promise<Map<string, ServedDomain>>) {}

  idOf(host: string): number | undefined {
    return this.byHost.size ? this.byHost.get(host)?.id : undefined;
  }

  /** What the domain serves besides links (only asked when no link answers). */
  pagesOf(host: string): DomainPages | null | undefined {
    return this.byHost.get(host)?.pages;
  }

  /** A reload that finishes after a newer one started is discarded (the newer one wins). */
  async reload(): Promise<void> {
    const mine = ++this.generation;
    const table = await this.load();
    if (mine === this.generation) this.byHost = table;
  }

  get size(): number {
    return this.byHost.size;
  }
}
