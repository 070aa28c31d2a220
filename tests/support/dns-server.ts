import dgram from "node:dgram";
import type { AddressInfo } from "node:net";
import dnsPacket from "dns-packet";

// A real DNS server on loopback (UDP) answering from a table the test controls. Point the app at
// it with DNS_SERVERS=127.0.0.1:<port>. Unknown names answer NXDOMAIN; a known name without
// records of the asked type answers NOERROR with no answers.

export type RecordType = "A" | "AAAA" | "TXT" | "CNAME";
export type DnsRecords = Record<string, Partial<Record<RecordType, string[]>>>;

export type DnsServer = {
  port: number;
  /** "127.0.0.1:<port>", the DNS_SERVERS value. */
  address: string;
  /** Replaces the values of one name and type (an empty list removes them). */
  set: (name: string, type: RecordType, values: string[]) => void;
  /** Every question asked so far, as "name type". */
  queries: string[];
  stop: () => Promise<void>;
};

const norm = (name: string) => name.toLowerCase().replace(/\.$/, "");

export async function startDnsServer(records: DnsRecords = {}): Promise<DnsServer> {
  const table = new Map<string, Partial<Record<RecordType, string[]>>>();
  for (const [name, r] of Object.entries(records)) table.set(norm(name), { ...r });
  const queries: string[] = [];
  const socket = dgram.createSocket("udp4");

  socket.on("message", (msg, rinfo) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const answers: dnsPacket.Answer[] = [];
    let rcode = "NOERROR";
    for (const q of query.questions ?? []) {
      const name = norm(q.name);
      queries.push(`${name} ${q.type}`);
      const entry = table.get(name);
      if (!entry) {
        rcode = "NXDOMAIN";
        continue;
      }
      const type = q.type as RecordType;
      for (const value of entry[type] ?? []) {
        if (type === "TXT") answers.push({ type: "TXT", name: q.name, ttl: 1, data: [value] } as dnsPacket.Answer);
        else answers.push({ type, name: q.name, ttl: 1, data: value } as dnsPacket.Answer);
      }
    }
    const response = dnsPacket.encode({
      id: query.id,
      type: "response",
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (rcode === "NXDOMAIN" ? 3 : 0),
      questions: query.questions,
      answers,
    });
    socket.send(response, rinfo.port, rinfo.address);
  });

  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = (socket.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    set(name, type, values) {
      const key = norm(name);
      const entry = table.get(key) ?? {};
      if (values.length) entry[type] = [...values];
      else delete entry[type];
      table.set(key, entry);
    },
    queries,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
