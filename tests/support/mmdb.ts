// A minimal MaxMind DB (MMDB v2) writer for tests: IPv4 networks -> records of maps and strings,
// 24-bit search-tree records. Enough to build a small "GeoLite2-City"-shaped database in a test
// (format: https://maxmind.github.io/MaxMind-DB/).

type Value = string | number | Value[] | { [k: string]: Value };

function encodeSize(type: number, size: number): Buffer {
  const ext = type > 7;
  const head = (ext ? 0 : type) << 5;
  let ctrl: number[];
  if (size < 29) ctrl = [head | size];
  else if (size < 285) ctrl = [head | 29, size - 29];
  else ctrl = [head | 30, ((size - 285) >> 8) & 0xff, (size - 285) & 0xff];
  if (ext) ctrl.splice(1, 0, type - 7);
  return Buffer.from(ctrl);
}

function encode(v: Value, kind?: "uint16" | "uint32" | "uint64"): Buffer {
  if (typeof v === "string") {
    const b = Buffer.from(v, "utf8");
    return Buffer.concat([encodeSize(2, b.length), b]);
  }
  if (typeof v === "number") {
    const type = kind === "uint16" ? 5 : kind === "uint64" ? 9 : 6;
    const bytes: number[] = [];
    for (let n = v; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
    return Buffer.concat([encodeSize(type, bytes.length), Buffer.from(bytes)]);
  }
  if (Array.isArray(v)) return Buffer.concat([encodeSize(11, v.length), ...v.map((x) => encode(x))]);
  const entries = Object.entries(v);
  return Buffer.concat([encodeSize(7, entries.length), ...entries.flatMap(([k, x]) => [encode(k), encode(x)])]);
}

type Child = { node: number } | { data: number } | null;

/** `networks`: CIDR ("81.2.69.0/24") -> record. */
export function buildMmdb(networks: Record<string, Value>, databaseType = "GeoLite2-City"): Buffer {
  const nodes: [Child, Child][] = [[null, null]];
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const [cidr, record] of Object.entries(networks)) {
    const [ip, bitsText] = cidr.split("/");
    const bits = Number(bitsText);
    const addr = ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
    const encoded = encode(record);
    const offset = dataSize;
    data.push(encoded);
    dataSize += encoded.length;
    let node = 0;
    for (let i = 0; i < bits; i++) {
      const bit = Math.floor(addr / 2 ** (31 - i)) % 2;
      if (i === bits - 1) {
        nodes[node][bit] = { data: offset };
        break;
      }
      const child = nodes[node][bit];
      if (child && "node" in child) node = child.node;
      else {
        nodes.push([null, null]);
        nodes[node][bit] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      }
    }
  }
  const count = nodes.length;
  const value = (c: Child) => (c === null ? count : "node" in c ? c.node : count + 16 + c.data);
  const tree = Buffer.alloc(count * 6);
  nodes.forEach(([l, r], i) => {
    tree.writeUIntBE(value(l), i * 6, 3);
    tree.writeUIntBE(value(r), i * 6 + 3, 3);
  });
  const meta = Buffer.concat([
    encodeSize(7, 9),
    encode("node_count"),
    encode(count, "uint32"),
    encode("record_size"),
    encode(24, "uint16"),
    encode("ip_version"),
    encode(4, "uint16"),
    encode("database_type"),
    encode(databaseType),
    encode("languages"),
    encode(["en"]),
    encode("binary_format_major_version"),
    encode(2, "uint16"),
    encode("binary_format_minor_version"),
    encode(0, "uint16"),
    encode("build_epoch"),
    encode(Math.floor(Date.now() / 1000), "uint64"),
    encode("description"),
    encode({ en: "Linkhop test database" }),
  ]);
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from("ABCDEF4D61784D696E642E636F6D", "hex"), meta]);
}
