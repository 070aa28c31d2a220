import net from "node:net";

// Which IP addresses a webhook may connect to: public unicast only. Everything in the IANA
// special-purpose registries (loopback, private, link-local, CGNAT, multicast, documentation,
// benchmarking, reserved, unspecified) is refused, and so are the IPv6 forms that carry an IPv4
// address (mapped, compatible, NAT64, 6to4, Teredo) when the IPv4 inside is refused.

export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "cgnat"
  | "multicast"
  | "documentation"
  | "benchmarking"
  | "reserved"
  | "invalid";

type Range = [prefix: number[], bits: number, cls: AddressClass];

// IPv4 ranges as [first octets, prefix length, class].
const V4: Range[] = [
  [[0], 8, "unspecified"], // "this network"; 0.0.0.0 itself connects to the local host
  [[10], 8, "private"],
  [[100, 64], 10, "cgnat"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "reserved"], // IETF protocol assignments
  [[192, 0, 2], 24, "documentation"],
  [[192, 31, 196], 24, "reserved"], // AS112
  [[192, 52, 193], 24, "reserved"], // AMT
  [[192, 88, 99], 24, "reserved"], // 6to4 relay anycast (deprecated)
  [[192, 168], 16, "private"],
  [[192, 175, 48], 24, "reserved"], // direct delegation AS112
  [[198, 18], 15, "benchmarking"],
  [[198, 51, 100], 24, "documentation"],
  [[203, 0, 113], 24, "documentation"],
  [[224], 4, "multicast"],
  [[240], 4, "reserved"], // includes 255.255.255.255 (broadcast)
];

// IPv6 ranges as [first bytes, prefix length, class]; checked after the IPv4-carrying forms.
const V6: Range[] = [
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, "reserved"], // discard-only 100::/64
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, "private"], // local-use NAT64 64:ff9b:1::/48
  [[0x20, 0x01, 0x0d, 0xb8], 32, "documentation"],
  [[0x20, 0x01, 0x00, 0x00], 23, "reserved"], // IETF protocol assignments (Teredo, ORCHID, ...)
  [[0x3f, 0xff], 20, "documentation"], // 3fff::/20
  [[0x5f, 0x00], 16, "reserved"], // SRv6 SIDs
  [[0xfc], 7, "private"], // unique local
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "private"], // site-local (deprecated)
  [[0xff], 8, "multicast"],
];

function matches(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

export function parseIPv4(ip: string): number[] | null {
  if (net.isIPv4(ip) === false) return null;
  return ip.split(".").map(Number);
}

/** 16 bytes of an IPv6 address (zone ids are refused), or null. */
export function parseIPv6(input: string): number[] | null {
  let ip = input.startsWith("[") && input.endsWith("]") ? input.slice(1, -1) : input;
  if (ip.includes("%") || !net.isIPv6(ip)) return null;
  // An embedded dotted IPv4 tail becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]);
    if (!v4) return null;
    ip = ip.slice(0, -dotted[1].length) + ((v4[0] << 8) | v4[1]).toString(16) + ":" + ((v4[2] << 8) | v4[3]).toString(16);
  }
  const [head, tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const missing = 8 - h.length - t.length;
  const groups = tail === undefined ? h : [...h, ...Array(missing).fill("0"), ...t];
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

function classifyV4(b: number[]): AddressClass {
  for (const [prefix, bits, cls] of V4) if (matches(b, prefix, bits)) return cls;
  return "public";
}

function classifyV6(b: number[]): AddressClass {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 16)) return "unspecified";
  if (zeros(0, 15) && b[15] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated), ::a.b.c.d (compatible, deprecated)
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(b.slice(12));
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return classifyV4(b.slice(12));
  if (zeros(0, 12)) return classifyV4(b.slice(12)) === "public" ? "reserved" : classifyV4(b.slice(12));
  // NAT64 well-known prefix 64:ff9b::/96 reaches the IPv4 inside.
  if (matches(b, [0x00, 0x64, 0xff, 0x9b], 32) && zeros(4, 12)) return classifyV4(b.slice(12));
  // 6to4 2002:a.b.c.d::/48 reaches the IPv4 in bytes 2..5.
  if (b[0] === 0x20 && b[1] === 0x02) {
    const inner = classifyV4(b.slice(2, 6));
    return inner === "public" ? "public" : inner;
  }
  for (const [prefix, bits, cls] of V6) if (matches(b, prefix, bits)) return cls;
  // Only 2000::/3 is allocated for global unicast.
  if ((b[0] & 0xe0) !== 0x20) return "reserved";
  return "public";
}

/** The class of an IP address (IPv4, IPv6, bracketed IPv6); "invalid" when it is not one. */
export function classifyAddress(ip: string): AddressClass {
  const v4 = parseIPv4(ip);
  if (v4) return classifyV4(v4);
  const v6 = parseIPv6(ip);
  if (v6) return classifyV6(v6);
  return "invalid";
}

/**
 * One spelling for each address, to compare them: 32 hex digits of its IPv6 bytes, where an IPv4
 * address and the IPv6 forms that reach it as address classes read them (mapped ::ffff:a.b.c.d,
 * translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d) are all its mapped form. A zone (%eth0) is
 * dropped: a URL cannot carry one, and fe80::1 is the same interface address without it. Null
 * when `ip` is not an address.
 */
export function addressKey(ip: string): string | null {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  const v4 = parseIPv4(bare);
  let b = v4 ? [...Array(10).fill(0), 0xff, 0xff, ...v4] : parseIPv6(bare.replace(/%.*$/, ""));
  if (!b) return null;
  const zeros = (from: number, to: number) => b!.slice(from, to).every((x) => x === 0);
  const translated = zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12);
  const nat64 = matches(b, [0x00, 0x64, 0xff, 0x9b], 32) && zeros(4, 12);
  if (translated || nat64) b = [...Array(10).fill(0), 0xff, 0xff, ...b.slice(12)];
  return b.map((x) => x.toString(16).padStart(2, "0")).join("");
}

export function isPublicAddress(ip: string): boolean {
  return classifyAddress(ip) === "public";
}
