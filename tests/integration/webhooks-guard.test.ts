// The address guard as production runs it (WEBHOOK_ALLOW_PRIVATE unset) with a real DNS server on
// loopback the test controls (DNS_SERVERS): refused on save for every non-public range, IPv6 and
// IPv4-mapped forms included, and checked again before every attempt: a name that was public when
// saved and resolves to a private address at attempt time gets no connection.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startDnsServer, type DnsServer } from "../support/dns-server.ts";
import { attemptsOf, emitEvent, newWorkspace, useEnv } from "./webhooks-helpers.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dns: DnsServer;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let ws: Awaited<ReturnType<typeof newWorkspace>>;

beforeAll(async () => {
  database = await createTestDatabase();
  dns = await startDnsServer({ "public.example.com": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1:248:1893:25c8:1946"] } });
  useEnv({
    WEBHOOK_ALLOW_PRIVATE: undefined,
    WEBHOOK_TEST_ALLOW_PORT: undefined,
    DNS_SERVERS: dns.address,
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_RETRY_DELAYS: "1m,5m,30m,2h,6h,12h",
  });
  await useDatabaseInProcess(database.url);
  webhooks = await import("../../lib/webhooks/index.ts");
  ws = await newWorkspace("business");
});

afterAll(async () => {
  await dns?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

async function saveError(url: string): Promise<string> {
  try {
    await webhooks.createEndpoint(ws.id, { url });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe("address guard on save", () => {
  it("accepts a host whose A and AAAA answers are all public", async () => {
    const ep = await webhooks.createEndpoint(ws.id, { url: "https://public.example.com/hooks?token=abc" });
    expect(ep.url).toBe("https://public.example.com/hooks?token=abc");
    await webhooks.deleteEndpoint(ws.id, ep.id);
  });

  it.each([
    ["A", "127.0.0.1", "loopback"],
    ["A", "10.20.30.40", "private"],
    ["A", "172.16.5.4", "private"],
    ["A", "192.168.1.20", "private"],
    ["A", "169.254.169.254", "link-local"],
    ["A", "100.64.0.7", "cgnat"],
    ["A", "224.0.0.251", "multicast"],
    ["A", "240.0.0.9", "reserved"],
    ["A", "0.0.0.0", "unspecified"],
    ["A", "192.0.2.1", "documentation"],
    ["A", "198.18.0.1", "benchmarking"],
    ["AAAA", "::1", "loopback"],
    ["AAAA", "::", "unspecified"],
    ["AAAA", "fd00::1", "private"],
    ["AAAA", "fe80::1", "link-local"],
    ["AAAA", "ff02::1", "multicast"],
    ["AAAA", "::ffff:127.0.0.1", "loopback"],
    ["AAAA", "::ffff:10.0.0.1", "private"],
    ["AAAA", "64:ff9b::a9fe:a9fe", "link-local"],
    ["AAAA", "2002:c0a8:0101::1", "private"],
  ] as const)("refuses a name whose %s record is %s (%s)", async (type, address, cls) => {
    const name = `r-${type}-${address.replace(/[^0-9a-f]/gi, "-")}.example.com`;
    // A public A record next to the refused one: every address must be public.
    dns.set(name, "A", type === "A" ? [address] : ["93.184.216.34"]);
    if (type === "AAAA") dns.set(name, "AAAA", [address]);
    const message = await saveError(`https://${name}/hook`);
    // Refused, without saying where the name points: the form must not map internal names.
    expect(message).toBe(`The host ${name.toLowerCase()} resolves to a private or reserved address; webhooks only go to public addresses.`);
    expect(message).not.toContain(address);
  });

  it.each([
    "https://127.0.0.1/hook",
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://[fe80::1]/hook",
    "https://10.0.0.1/hook",
  ])("refuses the address literal %s", async (url) => {
    expect(await saveError(url)).toMatch(/address/);
  });

  it("refuses http, other ports, credentials and names that do not resolve", async () => {
    expect(await saveError("http://public.example.com/hook")).toMatch(/https/);
    expect(await saveError("https://public.example.com:8443/hook")).toMatch(/443/);
    expect(await saveError("https://user:secret@public.example.com/hook")).toMatch(/user name or password/);
    expect(await saveError("https://missing.example.com/hook")).toMatch(/cannot be resolved/);
  });

  it("checks a changed URL again on edit", async () => {
    const ep = await webhooks.createEndpoint(ws.id, { url: "https://public.example.com/a" });
    dns.set("edit.example.com", "A", ["192.168.0.1"]);
    await expect(webhooks.updateEndpoint(ws.id, ep.id, { url: "https://edit.example.com/a" })).rejects.toThrow(/private/);
    await webhooks.deleteEndpoint(ws.id, ep.id);
  });
});

describe("address guard before every attempt", () => {
  it("a name public on save and private at attempt time is refused without a connection", async () => {
    // Something listening on a loopback address of its own, where a rebinding attack would point,
    // counting connections. It listens on a free port, which WEBHOOK_TEST_ALLOW_PORT lets through
    // the port rule alone (https and the address check stay as in production), so no privileged
    // port 443 is needed. The outcome alone would already differ if the guard let the attempt
    // through (a failed TLS handshake, not address_refused); the trap shows no packet left.
    let connections = 0;
    const trap = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    const { address: trapAddress, port } = await listenOnOwnLoopback(trap);
    useEnv({ WEBHOOK_TEST_ALLOW_PORT: String(port) });
    try {
      // The allowed port lifts nothing else: a private address, http and any other port stay refused.
      expect(await saveError(`https://${trapAddress}:${port}/hook`)).toMatch(/address/);
      expect(await saveError(`http://public.example.com:${port}/hook`)).toMatch(/https/);
      expect(await saveError(`https://public.example.com:${port === 65535 ? port - 1 : port + 1}/hook`)).toMatch(/443/);

      dns.set("rebind.example.com", "A", ["93.184.216.34"]);
      const ep = await webhooks.createEndpoint(ws.id, { url: `https://rebind.example.com:${port}/hook` });
      dns.set("rebind.example.com", "A", [trapAddress]);
      const other = await webhooks.listEndpoints(ws.id);
      expect(other.map((e) => e.id)).toEqual([ep.id]);

      const { deliveryIds } = await emitEvent(ws);
      expect(deliveryIds).toHaveLength(1);
      const r = await webhooks.attemptDelivery(deliveryIds[0]);
      expect(r).toMatchObject({ attempted: true, outcome: "address_refused", delivered: false, done: false, retryInMs: 60_000 });
      const [a] = await attemptsOf(deliveryIds[0]);
      expect(a.outcome).toBe("address_refused");
      // The delivery log the workspace sees says it was refused, not where the name points now.
      expect(a.error).toContain("private or reserved address");
      expect(a.error).not.toContain(trapAddress);
      expect(connections).toBe(0);

      // The same for an AAAA answer in IPv4-mapped form, and for a name that stops resolving.
      dns.set("rebind.example.com", "A", []);
      dns.set("rebind.example.com", "AAAA", [`::ffff:${trapAddress}`]);
      const r2 = await webhooks.attemptDelivery(deliveryIds[0], { manual: true });
      expect(r2.outcome).toBe("address_refused");
      expect(r2.message).not.toContain(trapAddress);
      expect((await attemptsOf(deliveryIds[0]))[1].error).not.toContain(trapAddress);
      dns.set("rebind.example.com", "AAAA", []);
      const r3 = await webhooks.attemptDelivery(deliveryIds[0], { manual: true });
      expect(r3.outcome).toBe("dns_error");
      expect(connections).toBe(0);
      await webhooks.deleteEndpoint(ws.id, ep.id);
    } finally {
      useEnv({ WEBHOOK_TEST_ALLOW_PORT: undefined });
      trap.close();
    }
  });
});

/**
 * Listens on a free port of a loopback address of its own (any 127.x.y.z answers on Linux, so
 * parallel runs do not collide; elsewhere 127.0.0.1).
 */
async function listenOnOwnLoopback(server: net.Server): Promise<{ address: string; port: number }> {
  const listen = (host: string) =>
    new Promise<NodeJS.ErrnoException | null>((resolve) => {
      server.once("error", resolve);
      server.listen(0, host, () => {
        server.off("error", resolve);
        resolve(null);
      });
    });
  const own = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  let host = own;
  let error = await listen(own);
  if (error?.code === "EADDRNOTAVAIL") {
    host = "127.0.0.1";
    error = await listen(host);
  }
  if (error) throw error;
  return { address: host, port: (server.address() as net.AddressInfo).port };
}
