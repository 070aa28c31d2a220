import os from "node:os";
import { addressKey, classifyAddress } from "./address.ts";
import { stripBrackets, type Resolve } from "./resolve.ts";

// Whether a host name reaches the machine it is used on: loopback (127.0.0.0/8, ::1) and
// unspecified (0.0.0.0, ::, which connect to the local host) addresses in every spelling, IPv4 in
// IPv6 included (::ffff:127.0.0.1), and the names that always mean loopback (localhost and
// *.localhost, RFC 6761). The link rules use it so that no spelling of a loopback short domain
// (localhost:3000 in development) passes for another host.
//
// Host names are expected as the WHATWG URL parser leaves them: lower case, and IPv4 in numeric
// forms (2130706433, 0x7f.1, 0177.0.0.1, 127.1) already made dotted-decimal.

/** An IP address (brackets allowed) that is loopback or unspecified. */
export function isThisMachineAddress(ip: string): boolean {
  const cls = classifyAddress(stripBrackets(ip));
  return cls === "loopback" || cls === "unspecified";
}

/** A host that is this machine without asking DNS: such an IP literal, localhost or *.localhost. */
export function isThisMachineName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || isThisMachineAddress(h);
}

/**
 * isThisMachineName, or else a name that resolves (through `resolve`: DNS_SERVERS or the system's)
 * to a loopback or unspecified address. Never throws and never waits longer than `timeoutMs`: a
 * name that does not resolve in time, or at all, is not this machine (a save must not hang on DNS
 * or fail because of it).
 */
export async function reachesThisMachine(host: string, opts: { resolve: Resolve; timeoutMs: number }): Promise<boolean> {
  if (isThisMachineName(host)) return true;
  if (classifyAddress(stripBrackets(host)) !== "invalid") return false;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), opts.timeoutMs)));
  try {
    const addresses = await Promise.race([opts.resolve(host).catch(() => [] as string[]), deadline]);
    return addresses.some(isThisMachineAddress);
  } finally {
    clearTimeout(timer);
  }
}

// The server listens on every address of the machine (server.ts), so a URL on one of its interface
// addresses reaches this service as surely as loopback does, and from farther away. The link rules
// refuse such destinations on every port: the port the server listens on is not the only way in (a
// proxy on the same machine forwards 80 and 443 to it), and a link to another service of this
// machine by its bare address is rare enough to ask for a name instead. Loopback addresses keep
// their own rule (isThisMachineAddress, only on a short-link host's port): from a visitor's browser
// they are the visitor's own machine.

/** How long the list of interface addresses is kept: an address added (DHCP, a new interface) counts within this. */
const INTERFACES_TTL_MS = 60_000;
let interfaces: { at: number; keys: Set<string> } | undefined;

/** The addressKey of every non-loopback address of `list` (os.networkInterfaces()), both families. */
export function interfaceAddressKeys(list: NodeJS.Dict<os.NetworkInterfaceInfo[]>): Set<string> {
  const keys = new Set<string>();
  for (const info of Object.values(list).flat()) {
    if (!info || isThisMachineAddress(info.address.replace(/%.*$/, ""))) continue;
    const key = addressKey(info.address);
    if (key) keys.add(key);
  }
  return keys;
}

/**
 * A host (an IP literal as the URL parser leaves it, brackets allowed) that is one of this machine's
 * own non-loopback interface addresses, in any spelling of it (IPv4 inside IPv6 included). Names
 * are not resolved: what a name points at can change after a link is saved. The list is read from
 * the system at most once a minute.
 */
export function isOwnInterfaceAddress(host: string): boolean {
  const key = addressKey(host);
  if (key === null) return false;
  const at = Date.now();
  if (!interfaces || at - interfaces.at > INTERFACES_TTL_MS) interfaces = { at, keys: interfaceAddressKeys(os.networkInterfaces()) };
  return interfaces.keys.has(key);
}
