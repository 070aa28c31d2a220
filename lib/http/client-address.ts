import { parseIPv6 } from "../net/address.ts";

// Who a request comes from, for the limits that count per client: password guesses on protected
// links (lib/redirects/password.ts) and the sign-in, sign-up and password-reset limits (lib/auth).

/**
 * The visitor's address: the peer's, or behind one trusted reverse proxy (TRUST_PROXY=1) the last
 * X-Forwarded-For entry, which that proxy appended (earlier entries are the client's to forge).
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string | undefined {
  if (!trustProxy || !forwardedFor) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const last = header
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  return last ?? peer;
}

/** Who a guess is counted against: an IPv4 address (also when written IPv4-mapped), or an IPv6 /64. */
export function guessGroup(address: string | undefined): string {
  if (!address) return "unknown";
  const b = parseIPv6(address);
  if (!b) return address;
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return b.slice(12).join(".");
  const groups = [];
  for (let i = 0; i < 8; i += 2) groups.push(((b[i] << 8) | b[i + 1]).toString(16));
  return `${groups.join(":")}::/64`;
}
