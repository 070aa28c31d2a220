import { shared } from "../registry.ts";
import http from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";

// One POST to addresses the guard has already checked. The request's `lookup` is pinned to those
// addresses (no second resolution), TLS is verified against the URL's host name (SNI and
// certificate check), redirects are not followed, the whole attempt has one deadline, and at most
// `maxResponseBytes` of the answer are read before the connection is closed. Never rejects.
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

export function classifyNetworkError(e: NodeJS.ErrnoException): PostOutcome {
  const code = e.code ?? "";
  if (code === "ECONNREFUSED") return "connection_refused";
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

type Pool = { agent: http.Agent; lastUsed: number };
const pools = shared("dialer-pools", () => new Map<string, Pool>());
let sweeper: NodeJS.Timeout | null = null;

function poolFor(isHttps: boolean, host: string, port: number, addresses: string[]): http.Agent {
  const key = `${isHttps ? "https" : "http"}|${host}|${port}|${[...addresses].sort().join(",")}`;
  let pool = pools.get(key);
  if (!pool) {
    const options = {
      keepAlive: true,
      maxSockets: MAX_SOCKETS_PER_POOL,
      maxFreeSockets: MAX_SOCKETS_PER_POOL,
      timeout: IDLE_SOCKET_MS,
      scheduling: "lifo" as const,
    };
    pool = { agent: isHttps ? new https.Agent(options) : new http.Agent(options), lastUsed: 0 };
    pools.set(key, pool);
    sweeper ??= setInterval(() => {
      for (const [k, v] of pools) {
        if (Date.now() - v.lastUsed > IDLE_POOL_MS) {
          v.agent.destroy();
          pools.delete(k);
        }
      }
      if (pools.size === 0 && sweeper) {
        clearInterval(sweeper);
        sweeper = null;
      }
    }, IDLE_POOL_MS).unref();
  }
  pool.lastUsed = Date.now();
  return pool.agent;
}

/**
 * Closes the pooled connections to `host` (whatever addresses they went to): its name no longer
 * passes the address check, so no connection made while it did may carry another request.
 */
export function dropPooledConnections(host: string): void {
  const name = host.replace(/^\[|\]$/g, "");
  for (const [k, v] of pools) {
    if (k.split("|")[1] !== name) continue;
    v.agent.destroy();
    pools.delete(k);
  }
}

/** Closes every pooled connection (shutdown, tests). */
export function closePooledConnections(): void {
  for (const v of pools.values()) v.agent.destroy();
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

function postOnce(p: PinnedPost, pooled: boolean): Promise<{ result: PostResult; staleReuse: boolean }> {
  const max = p.maxResponseBytes ?? 1024;
  const started = performance.now();
  const host = p.url.hostname.replace(/^\[|\]$/g, "");
  const isHttps = p.url.protocol === "https:";
  const method = p.method ?? "POST";
  const body = method === "GET" ? Buffer.alloc(0) : typeof p.body === "string" ? Buffer.from(p.body, "utf8") : p.body;

  return new Promise((resolve) => {
    let settled = false;
    let complete = false;
    let statusCode: number | null = null;
    let location: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (outcome: PostOutcome, error: string | null = null, staleReuse = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Only a connection whose answer was read to its end goes back to the pool.
      if (!complete) req.destroy();
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

    const port = p.url.port ? Number(p.url.port) : isHttps ? 443 : 80;
    const options: https.RequestOptions = {
      method,
      hostname: host,
      port,
      path: `${p.url.pathname}${p.url.search}`,
      headers: method === "GET" ? p.headers : { ...p.headers, "Content-Length": String(body.length) },
      agent: pooled ? poolFor(isHttps, host, port, p.addresses) : false,
      lookup: pinnedLookup(p.addresses),
      ...(isHttps && !net.isIP(host) ? { servername: host } : {}),
    };
    const req = (isHttps ? https : http).request(options);

    const timer = setTimeout(() => {
      // A status that arrived in time is the answer, even when its body is slow.
      if (statusCode !== null) finish("response");
      else finish("timeout", `no answer within ${p.timeoutMs} ms`);
    }, p.timeoutMs);

    req.on("response", (res) => {
      statusCode = res.statusCode ?? null;
      location = typeof res.headers.location === "string" ? res.headers.location.slice(0, 500) : null;
      res.on("data", (chunk: Buffer) => {
        if (size < max) chunks.push(chunk);
        size += chunk.length;
        if (size >= max) finish("response"); // enough: close instead of reading the rest
      });
      res.on("end", () => {
        complete = size < max;
        finish("response");
      });
      res.on("error", () => finish("response"));
      res.on("aborted", () => finish("response"));
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && statusCode === null && (e.code === "ECONNRESET" || e.code === "EPIPE");
      finish(classifyNetworkError(e), describe(e), stale);
    });
    if (method === "GET") req.end();
    else req.end(body);
  });
}
