import dgram from "node:dgram";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { client, makeDomain, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { startDnsServer, type DnsServer } from "../support/dns-server.ts";

// "A destination that is already a short link" against the real app (SHORT_DOMAIN localhost:3000,
// the test default) and a real DNS server on loopback (DNS_SERVERS): every spelling of this
// machine's address on the short domain's port is refused, the IP literal forms the URL parser
// normalises (decimal, hex, octal, short IPv4), IPv4-mapped and unspecified addresses, *.localhost,
// and names that resolve to loopback; other ports and public hosts are not.

let env: ApiTestEnv;
let dns: DnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    "loop.example.test": { A: ["127.0.0.1"] },
    "loop6.example.test": { AAAA: ["::1"] },
    "mapped.example.test": { AAAA: ["::ffff:127.0.0.9"] },
    "public.example.test": { A: ["93.184.216.34"] },
  });
  env = await startApiTest({ env: { DNS_SERVERS: dns.address } });
});
afterAll(async () => {
  await env?.stop();
  await dns?.stop();
});

describe("a destination that is already a short link", () => {
  it("is refused in every loopback and unspecified spelling on the short domain's port, and by resolved name", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const api = client(env.app, key);
    const refused = [
      "http://[::ffff:127.0.0.1]:3000/abc",
      "http://[::ffff:7f00:1]:3000/abc",
      "http://[0:0:0:0:0:ffff:127.0.0.1]:3000/abc",
      "http://127.0.0.2:3000/abc",
      "http://127.255.255.254:3000/abc",
      "http://0.0.0.0:3000/abc",
      "http://[::]:3000/abc",
      "http://[::1]:3000/abc",
      "http://[0:0:0:0:0:0:0:1]:3000/abc",
      "http://2130706433:3000/abc",
      "http://0x7f.1:3000/abc",
      "http://0177.0.0.1:3000/abc",
      "http://127.1:3000/abc",
      "http://0:3000/abc",
      "http://LOCALHOST.:3000/abc",
      "http://app.localhost:3000/abc",
      "http://loop.example.test:3000/abc",
      "http://loop6.example.test:3000/abc",
      "http://mapped.example.test:3000/abc",
    ];
    for (const url of refused) {
      const a = await api.post("/api/v1/links", { url });
      expect(a.status, `${url}: ${a.text}`).toBe(400);
      expect(a.text, url).toMatch(/short-link host of this service/);
      // The same in a fallback and a targeting URL.
      const b = await api.post("/api/v1/links", { url: "https://example.com/", targeting: { geo: { DE: url } } });
      expect(b.status, `geo ${url}: ${b.text}`).toBe(400);
    }
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });

  it("still accepts loopback on another port, public hosts and names that do not resolve, and keeps the name rule", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const other = await makeWorkspace("pro");
    const host = `go-${Date.now().toString(36)}.other.test`;
    await makeDomain(other.workspace.id, host);
    const api = client(env.app, key);
    for (const url of [
      "http://127.0.0.2:3001/x",
      "http://[::ffff:127.0.0.1]:4000/x",
      "http://public.example.test:3000/x",
      "http://missing.example.test:3000/x",
      "https://example.com/x",
    ]) {
      const a = await api.post("/api/v1/links", { url });
      expect(a.status, `${url}: ${a.text}`).toBe(201);
    }
    expect((await api.post("/api/v1/links", { url: `https://${host}/abc` })).status).toBe(400);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(5);
  });
});

// On a plan without webhooks a create is one statement that also checks the destination against
// verified custom domains (lib/links/create-sql.ts); the answers must be those of the other path.
describe("a destination on a verified custom domain, on both create paths", () => {
  it("is refused with the same body on a plan without webhooks (one statement) and with them (a transaction), taking nothing", async () => {
    const owner = await makeWorkspace("pro");
    const host = `vd-${Date.now().toString(36)}.chain.test`;
    await makeDomain(owner.workspace.id, host);
    const bodies: unknown[] = [];
    for (const plan of ["pro", "team"]) {
      const { key, workspace } = await makeWorkspace(plan);
      const api = client(env.app, key);
      const a = await api.post("/api/v1/links", { url: "https://example.com/", fallbackUrl: `https://${host.toUpperCase()}/x` });
      expect(a.status, a.text).toBe(400);
      bodies.push(a.body);
      // with a password (checked before its hash, on both paths): the same answer
      const p = await api.post("/api/v1/links", { url: "https://example.com/", fallbackUrl: `https://${host}/x`, password: "pw-123456" });
      expect([p.status, p.body]).toEqual([400, a.body]);
      expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
      expect(await db().monthlyUsage.count({ where: { workspaceId: workspace.id, created: { gt: 0 } } })).toBe(0);
      // and the next creates still get their units of the allowance, with a password too
      expect((await api.post("/api/v1/links", { url: "https://example.com/ok" })).status).toBe(201);
      expect((await api.post("/api/v1/links", { url: "https://example.com/ok", password: "pw-123456" })).status).toBe(201);
    }
    expect(bodies[0]).toEqual(bodies[1]);
    expect(JSON.stringify(bodies[0])).toMatch(/fallbackUrl: .*short-link host of this service/);
  });

  it("comes before a missing feature, as on every other path", async () => {
    const owner = await makeWorkspace("pro");
    const host = `vf-${Date.now().toString(36)}.chain.test`;
    await makeDomain(owner.workspace.id, host);
    const { key, workspace } = await makeWorkspace("free");
    const api = client(env.app, key);
    const a = await api.post("/api/v1/links", { url: `https://${host}/x`, alias: "mine" });
    expect(a.status, a.text).toBe(400);
    expect(a.text).toMatch(/short-link host of this service/);
    // without the refused destination the missing feature answers
    expect((await api.post("/api/v1/links", { url: "https://example.com/", alias: "mine" })).status).toBe(403);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
  });
});

// A resolver that never answers must not hold a link save for long, nor refuse it.
describe("resolving a destination's name is bounded", () => {
  it("a silent DNS server: the check gives up within its deadline and the name is not taken for this machine", async () => {
    const silent = dgram.createSocket("udp4");
    await new Promise<void>((r) => silent.bind(0, "127.0.0.1", r));
    try {
      const { reachesThisMachine, resolverFor } = await import("../../lib/net/index.ts");
      const t0 = performance.now();
      const r = await reachesThisMachine("slow.example.test", {
        resolve: resolverFor([`127.0.0.1:${silent.address().port}`]),
        timeoutMs: 300,
      });
      const took = performance.now() - t0;
      expect(r).toBe(false);
      expect(took).toBeLessThan(2000);
      expect(
        await reachesThisMachine("[::ffff:127.0.0.1]", { resolve: resolverFor([`127.0.0.1:${silent.address().port}`]), timeoutMs: 300 }),
      ).toBe(true);
    } finally {
      silent.close();
    }
  });
});

// The server listens on every address of the machine (server.ts), so a destination on one of its
// own interface addresses reaches this service as surely as loopback does: refused on every port
// (lib/net/this-machine.ts), whatever the short domain, in each spelling the URL parser keeps.
describe("a destination on one of this machine's own (non-loopback) interface addresses", () => {
  const own = Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && !a.address.startsWith("127.") && a.address !== "::1")
    .map((a) => a!);

  it("is refused like a loopback destination, on the app's port and any other; public destinations still work", async (ctx) => {
    if (own.length === 0) ctx.skip("this machine has no non-loopback interface address (os.networkInterfaces()): nothing to refuse");
    const { key, workspace } = await makeWorkspace("pro");
    const api = client(env.app, key);
    const loop = await api.post("/api/v1/links", { url: "http://127.0.0.2:3000/x" });
    expect(loop.status, loop.text).toBe(400);
    const spell = (a: os.NetworkInterfaceInfo) => (a.family === "IPv6" ? `[${a.address}]` : a.address);
    const refused = own.flatMap((a) => [
      `http://${spell(a)}:${env.app.port}/x`,
      `http://${spell(a)}:1/x`,
      `https://${spell(a)}/x`,
      // the same address spelled otherwise: IPv4 inside IPv6, IPv6 written out in full
      a.family === "IPv4" ? `http://[::ffff:${a.address}]:${env.app.port}/x` : `http://[${expandIPv6(a.address)}]:${env.app.port}/x`,
    ]);
    for (const url of refused) {
      const a = await api.post("/api/v1/links", { url });
      expect(a.status, `${url}: ${a.text}`).toBe(400);
      expect(a.body.error, url).toBe(loop.body.error);
      expect(a.text, url).toMatch(/short-link host of this service/);
      const b = await api.post("/api/v1/links", { url: "https://example.com/", fallbackUrl: url });
      expect(b.status, `fallback ${url}: ${b.text}`).toBe(400);
    }
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
    for (const url of ["https://example.com/x", `http://93.184.216.34:${env.app.port}/x`]) {
      const a = await api.post("/api/v1/links", { url });
      expect(a.status, `${url}: ${a.text}`).toBe(201);
    }
  });
});

/** "fd00::2" -> "fd00:0:0:0:0:0:0:2" (upper case), a spelling the URL parser turns back into the short one. */
function expandIPv6(ip: string): string {
  const [head, tail] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  return (tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t]).join(":").toUpperCase();
}
