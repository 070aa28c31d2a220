import { shared } from "../registry.ts";
import dns from "node:dns";
import net from "node:net";

// Name resolution for outgoing connections. With DNS_SERVERS (host:port list) the named resolvers
// are asked directly (A and AAAA); otherwise the system's resolver (getaddrinfo, /etc/hosts).

export type Resolve = (host: string) => Promise<string[]>;

export class DnsError extends Error {
  constructor(
    readonly host: string,
    readonly code: string,
  ) {
    super(`cannot resolve ${host} (${code})`);
  }
}

/** Codes meaning "the name has no address" (as opposed to "no answer came"). */
export const NO_ANSWER = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN", "ENONAME"]);

/** A resolver that asks `servers` ("host:port" or "host") directly. */
export function resolverFor(servers: string[], timeoutMs = 3000): Resolve {
  const r = new dns.promises.Resolver({ timeout: timeoutMs, tries: 2 });
  r.setServers(servers);
  return async (host) => {
    if (net.isIP(stripBrackets(host))) return [stripBrackets(host)];
    const [v4, v6] = await Promise.allSettled([r.resolve4(host), r.resolve6(host)]);
    const addresses = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
    if (addresses.length) return addresses;
    const failed = [v4, v6].find((x) => x.status === "rejected" && !NO_ANSWER.has((x.reason as { code?: string }).code ?? ""));
    const code = failed?.status === "rejected" ? ((failed.reason as { code?: string }).code ?? "ESERVFAIL") : "ENOTFOUND";
    throw new DnsError(host, code);
  };
}

/** The system resolver (what `dns.lookup` sees); IPv4 answers first. */
export const systemResolve: Resolve = async (host) => {
  if (net.isIP(stripBrackets(host))) return [stripBrackets(host)];
  try {
    const list = await dns.promises.lookup(host, { all: true, verbatim: true });
    return [...list.filter((a) => a.family === 4), ...list.filter((a) => a.family === 6)].map((a) => a.address);
  } catch (e) {
    throw new DnsError(host, (e as { code?: string }).code ?? "ENOTFOUND");
  }
};

/**
 * The resolver for this configuration: DNS_SERVERS when set, else the system's, coalesced: a caller
 * that asks while a lookup of the same name runs gets that lookup's answer, which arrives after it
 * asked. Nothing is kept once an answer is in, so every later check asks again.
 */
export function defaultResolve(servers: string[]): Resolve {
  const key = servers.join(",");
  const cache = shared("resolvers", () => new Map<string, Resolve>());
  let r = cache.get(key);
  if (!r) cache.set(key, (r = coalesced(servers.length ? resolverFor(servers) : systemResolve)));
  return r;
}

/**
 * `resolve` with concurrent lookups of one name answered by one lookup: a burst of webhook attempts
 * to one endpoint asks the DNS once (the libuv threads that `dns.lookup` uses are four).
 */
export function coalesced(resolve: Resolve): Resolve {
  const inFlight = new Map<string, Promise<string[]>>();
  return (host) => {
    let p = inFlight.get(host);
    if (!p) {
      p = resolve(host).finally(() => inFlight.delete(host));
      inFlight.set(host, p);
    }
    return p.then((addresses) => [...addresses]);
  };
}

export function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
