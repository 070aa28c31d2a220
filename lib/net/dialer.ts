import { shared } from "../registry.ts";
import net, { type LookupFunction } from "node:net";
import { Client, type Dispatcher } from "undici";

// One POST to addresses the guard has already checked, through undici's HTTP/1.1 client (a
// delivery costs 14 to 32% less CPU than with node:http's: docs/benchmarks.md, "Sending a
// delivery"). The connection's `lookup` is pinned to those addresses (no second resolution), TLS
// is verified against the URL's host name (SNI and certificate check), redirects are not followed,
// the whole attempt has one deadline, and at most `maxResponseBytes` of the answer are read before
// the connection is closed. Never rejects.
//
// Connections are kept alive in a pool per (scheme, host, port, checked address set): a reused
// connection always goes to an address that this attempt's check allowed, and a changed address
// set gets fresh connections. A connection whose answer was cut short, or that timed out, is never
// returned to the pool.

export type PostOutcome = "response" | "timeout" | "connection_refused" | "tls_error" | "error";

export type PostResult = {
  outcome: PostOutcome;
  statusCode: number | null;
  /** The first maxResponseBytes of the answer (UTF-8, invalid sequences replaced). */
  body: string;
  /** The Location header of a redirect (not followed). */
  location: string | null;
  error: string | null;
  durationMs: number;
};

export type PinnedPost = {
  /** POST (webhooks, the default) or GET (a link preview's page: lib/links/preview-fetch.ts; no body sent) */
  method?: "POST" | "GET";
  url: URL;
  /** Checked addresses to connect to, in order of preference. */
  addresses: string[];
  headers: Record<string, string>;
  body: string | Buffer;
  timeoutMs: number;
  maxResponseBytes?: number;
};

const TLS_CODE = /CERT|SSL|TLS|EPROTO|ALTNAME|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/;
/** undici's codes for a deadline of its own (connect, headers, body), should one come first. */
const TIMEOUT_CODE = /^UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT$/;
/** The connection was closed or reset before an answer came. */
const CLOSED_CODE = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

export function classifyNetworkError(e: NodeJS.ErrnoException): PostOutcome {
  const code = e.code ?? "";
  if (code === "ECONNREFUSED") return "connection_refused";
  if (TIMEOUT_CODE.test(code)) return "timeout";
  if (TLS_CODE.test(code) || /certificate|ssl|tls/i.test(e.message)) return "tls_error";
  return "error";
}

function describe(e: NodeJS.ErrnoException): string {
  return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
}

/** A `lookup` that answers with the pinned addresses only. */
export function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  return ((_host: string, options: { all?: boolean; family?: number }, cb: (...args: unknown[]) => void) => {
    const usable = options.family === 4 || options.family === 6 ? entries.filter((e) => e.family === options.family) : entries;
    if (!usable.length) {
      const err = Object.assign(new Error("no checked address of the requested family"), { code: "ENOTFOUND" });
      return cb(err, options.all ? [] : "", 4);
    }
    if (options.all) cb(null, usable);
    else cb(null, usable[0].address, usable[0].family);
  }) as LookupFunction;
}

/** Idle pooled connections are closed after this, before a typical server's own keep-alive ends. */
const IDLE_SOCKET_MS = 4000;
/** Pools unused for this long are closed and forgotten. */
const IDLE_POOL_MS = 60_000;
const MAX_SOCKETS_PER_POOL = 16;

/** Where a request goes: the URL's origin, reached only at the checked addresses. */
type Target = { origin: string; host: string; addresses: string[]; connectTimeoutMs: number };

function clientOptions(t: Target): Client.Options {
  return {
    keepAliveTimeout: IDLE_SOCKET_MS,
    keepAliveMaxTimeout: IDLE_SOCKET_MS,
    pipelining: 1,
    connect: {
      lookup: pinnedLookup(t.addresses),
      // A connection still opening cannot be closed from outside (undici closes it once it opens or
      // fails): this bounds it by the timeout of the attempt that made the client.
      timeout: t.connectTimeoutMs,
      ...(t.origin.startsWith("https:") && !net.isIP(t.host) ? { servername: t.host } : {}),
    },
  };
}

/**
 * One kept-alive connection. It tells each request whether it goes out on a connection that has
 * carried one before (`reused`): only such a request, reset before any answer, is tried again.
 */
class CountingClient extends Client {
  private sent = 0;
  constructor(origin: string, options: Client.Options) {
    super(origin, options);
    this.on("disconnect", () => (this.sent = 0));
  }
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    (handler as Handler).reused = this.sent++ > 0;
    return super.dispatch(options, handler);
  }
}

/**
 * The connections to one target. A request takes the first idle one (so back-to-back requests
 * share one connection), else a new one up to MAX_SOCKETS_PER_POOL, else waits behind the least busy.
 * (undici's own Pool opens a second connection for a request sent while the first one is checked
 * for a close from the other side, which it does before every reuse.)
 */
class Connections {
  private readonly clients: CountingClient[] = [];
  lastUsed = 0;
  constructor(private readonly target: Target) {}
  pick(connectTimeoutMs: number): CountingClient {
    this.lastUsed = Date.now();
    let least: CountingClient | null = null;
    let leastSize = Infinity;
    for (const c of this.clients) {
      const size = c.stats.size;
      if (size === 0) return c;
      if (size < leastSize) [least, leastSize] = [c, size];
    }
    if (least && this.clients.length >= MAX_SOCKETS_PER_POOL) return least;
    const client = new CountingClient(this.target.origin, clientOptions({ ...this.target, connectTimeoutMs }));
    this.clients.push(client);
    return client;
  }
  /**
   * Closes the connection of a request that did not end with its whole answer read (cut short,
   * timed out, failed), unless other requests wait for it: they get a fresh connection from it.
   * `onIt`: the request had the connection (else it was still waiting for it, or never got it).
   */
  discard(client: CountingClient, onIt: boolean): void {
    const { pending, running } = client.stats;
    // with one request at a time per connection, the others are the queued ones (less this one,
    // when it is still queued), or a running one when this one never got the connection
    if (onIt ? pending > 0 : running > 0 || pending > 1) return;
    const i = this.clients.indexOf(client);
    if (i >= 0) this.clients.splice(i, 1);
    void client.destroy().catch(() => {});
  }
  destroy(): void {
    for (const c of this.clients) void c.destroy().catch(() => {});
  }
}

const pools = shared("dialer-pools", () => new Map<string, Connections>());
let sweeper: NodeJS.Timeout | null = null;

function poolFor(t: Target): Connections {
  const key = `${t.origin}|${[...t.addresses].sort().join(",")}`;
  let pool = pools.get(key);
  if (!pool) {
    pool = new Connections(t);
    pools.set(key, pool);
    sweeper ??= setInterval(() => {
      for (const [k, v] of pools) {
        if (Date.now() - v.lastUsed > IDLE_POOL_MS) {
          v.destroy();
          pools.delete(k);
        }
      }
      if (pools.size === 0 && sweeper) {
        clearInterval(sweeper);
        sweeper = null;
      }
    }, IDLE_POOL_MS).unref();
  }
  return pool;
}

const hostOfKey = (key: string) => new URL(key.slice(0, key.indexOf("|"))).hostname.replace(/^\[|\]$/g, "");

/**
 * Closes the pooled connections to `host` (whatever addresses they went to): its name no longer
 * passes the address check, so no connection made while it did may carry another request.
 */
export function dropPooledConnections(host: string): void {
  const name = host.replace(/^\[|\]$/g, "");
  for (const [k, v] of pools) {
    if (hostOfKey(k) !== name) continue;
    v.destroy();
    pools.delete(k);
  }
}

/** Closes every pooled connection (shutdown, tests). */
export function closePooledConnections(): void {
  for (const v of pools.values()) v.destroy();
  pools.clear();
}

export async function postPinned(p: PinnedPost): Promise<PostResult> {
  const first = await postOnce(p, true);
  // A kept-alive connection the receiver closed just as we reused it: one fresh try, same deadline.
  if (first.staleReuse) {
    const left = p.timeoutMs - first.result.durationMs;
    if (left > 0) {
      const second = await postOnce({ ...p, timeoutMs: left }, false);
      return { ...second.result, durationMs: first.result.durationMs + second.result.durationMs };
    }
  }
  return first.result;
}

type Handler = Dispatcher.DispatchHandler & { reused?: boolean };

function postOnce(p: PinnedPost, pooled: boolean): Promise<{ result: PostResult; staleReuse: boolean }> {
  const max = p.maxResponseBytes ?? 1024;
  const started = performance.now();
  const method = p.method ?? "POST";
  const target: Target = {
    origin: p.url.origin,
    host: p.url.hostname.replace(/^\[|\]$/g, ""),
    addresses: p.addresses,
    connectTimeoutMs: p.timeoutMs,
  };
  const pool = pooled ? poolFor(target) : null;
  const client = pool ? pool.pick(p.timeoutMs) : new CountingClient(target.origin, clientOptions(target));

  return new Promise((resolve) => {
    let settled = false;
    let abort: ((reason?: Error) => void) | null = null;
    let statusCode: number | null = null;
    let location: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (outcome: PostOutcome, error: string | null = null, staleReuse = false, complete = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Only a connection whose answer was read to its end goes back to the pool.
      if (!complete) {
        abort?.(new Error("attempt over"));
        if (pool) pool.discard(client, abort !== null);
      }
      if (!pool) void client.destroy().catch(() => {});
      resolve({
        staleReuse,
        result: {
          outcome,
          statusCode,
          body: Buffer.concat(chunks).subarray(0, max).toString("utf8"),
          location,
          error,
          durationMs: Math.round(performance.now() - started),
        },
      });
    };

    const timer = setTimeout(() => {
      // A status that arrived in time is the answer, even when its body is slow.
      if (statusCode !== null) finish("response");
      else finish("timeout", `no answer within ${p.timeoutMs} ms`);
    }, p.timeoutMs);

    const handler: Handler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (settled) abortRequest(new Error("attempt over")); // its deadline passed while it waited for a connection
      },
      onHeaders(status, rawHeaders) {
        statusCode = status;
        for (let i = 0; i < rawHeaders.length; i += 2) {
          if (rawHeaders[i].toString("latin1").toLowerCase() === "location") {
            location = rawHeaders[i + 1].toString("latin1").slice(0, 500);
            break;
          }
        }
        return true;
      },
      onData(chunk) {
        if (size < max) chunks.push(chunk);
        size += chunk.length;
        if (size >= max) finish("response"); // enough: close instead of reading the rest
        return true;
      },
      onComplete() {
        finish("response", null, false, size < max);
      },
      onError(e: NodeJS.ErrnoException) {
        if (statusCode !== null) return finish("response");
        const stale = !!handler.reused && CLOSED_CODE.has(e.code ?? "");
        finish(classifyNetworkError(e), describe(e), stale);
      },
    };
    client.dispatch(
      {
        method,
        path: `${p.url.pathname}${p.url.search}`,
        headers: p.headers,
        body: method === "GET" ? null : p.body,
      },
      handler,
    );
  });
}
