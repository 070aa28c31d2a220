import http from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";

// One POST to addresses the guard has already checked. The request's `lookup` is pinned to those
// addresses (no second resolution), TLS is verified against the URL's host name (SNI and
// certificate check), redirects are not followed, the whole attempt has one deadline, and at most
// `maxResponseBytes` of the answer are read before the connection is closed. Never rejects.

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

export function postPinned(p: PinnedPost): Promise<PostResult> {
  const max = p.maxResponseBytes ?? 1024;
  const started = performance.now();
  const host = p.url.hostname.replace(/^\[|\]$/g, "");
  const isHttps = p.url.protocol === "https:";
  const body = typeof p.body === "string" ? Buffer.from(p.body, "utf8") : p.body;

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    let location: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;

    const finish = (outcome: PostOutcome, error: string | null = null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({
        outcome,
        statusCode,
        body: Buffer.concat(chunks).subarray(0, max).toString("utf8"),
        location,
        error,
        durationMs: Math.round(performance.now() - started),
      });
    };

    const options: https.RequestOptions = {
      method: "POST",
      hostname: host,
      port: p.url.port ? Number(p.url.port) : isHttps ? 443 : 80,
      path: `${p.url.pathname}${p.url.search}`,
      headers: { ...p.headers, "Content-Length": String(body.length) },
      agent: false,
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
      res.on("end", () => finish("response"));
      res.on("error", () => finish("response"));
      res.on("aborted", () => finish("response"));
    });
    req.on("error", (e: NodeJS.ErrnoException) => finish(classifyNetworkError(e), describe(e)));
    req.end(body);
  });
}
