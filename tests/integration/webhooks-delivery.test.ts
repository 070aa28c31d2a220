// Deliveries from the real app (built-in scheduler) to real HTTPS receivers on loopback. The app
// trusts a throwaway CA through NODE_EXTRA_CA_CERTS. WEBHOOK_ALLOW_PRIVATE=1 lifts only the
// scheme/port/address rules (loopback), so TLS verification, the pinned connection and everything
// else run as in production; the address rules themselves are tested in webhooks-guard.
import https from "node:https";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestCa, startReceiver, type Receiver, type Responder, type TestCa } from "../support/https-receiver.ts";
import { startDnsServer, type DnsServer } from "../support/dns-server.ts";
import pkg from "../../package.json" with { type: "json" };
import { call } from "../support/api.ts";
import { setClock } from "../../lib/clock.ts";
import { attemptsOf, emitEvent, eventually, newWorkspace, useEnv } from "./webhooks-helpers.ts";
import { freePort } from "../support/ports.ts";

const DELAYS = [200, 400, 600, 800, 1000, 1200];
/** A time zone 13:45 ahead of UTC: a local time written with a Z would be off by that much. */
const NOT_UTC = "Pacific/Chatham";
const TIMEOUT_MS = 1500;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ca: TestCa;
let dns: DnsServer;
let tlsCert: { key: string; cert: string };
const receivers: Receiver[] = [];

async function receiver(respond?: Responder, tls = tlsCert) {
  const r = await startReceiver({ tls, respond });
  receivers.push(r);
  return r;
}

let webhooks: typeof import("../../lib/webhooks/index.ts");
let db: typeof import("../../lib/db/client.ts").db;

async function endpointFor(url: string) {
  const ws = await newWorkspace("team");
  const ep = await webhooks.createEndpoint(ws.id, { url });
  return { ws, ep };
}

beforeAll(async () => {
  database = await createTestDatabase();
  ca = createTestCa();
  tlsCert = ca.issue(["hooks.test", "localhost"]);
  dns = await startDnsServer({ "hooks.test": { A: ["127.0.0.1"] }, "wrong.test": { A: ["127.0.0.1"] }, localhost: { A: ["127.0.0.1"] } });
  const env = {
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: DELAYS.map((d) => `${d}ms`).join(","),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    DNS_SERVERS: dns.address,
    APP_URL: "https://links.example.test",
  };
  useEnv(env);
  await useDatabaseInProcess(database.url);
  webhooks = await import("../../lib/webhooks/index.ts");
  db = (await import("../../lib/db/client.ts")).db;
  // The app's local time is not UTC: a local time labelled Z would be far off.
  app = await startApp(database.url, { ...env, NODE_EXTRA_CA_CERTS: ca.certPath, TZ: NOT_UTC });
});

afterAll(async () => {
  await app?.stop();
  await Promise.all(receivers.map((r) => r.stop()));
  await dns?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
  ca?.cleanup();
});

describe("webhook delivery over HTTPS", () => {
  it("sends the stored bytes with the documented headers and a signature that verifies", async () => {
    const r = await receiver(() => ({ status: 200, body: "thanks" }));
    const { ws, ep } = await endpointFor(r.url("localhost"));
    const { event, deliveryIds } = await emitEvent(ws);
    const [req] = await r.waitFor(1);

    expect(req.raw.toString("utf8")).toBe(event!.body);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe(`Linkhop-Webhooks/${pkg.version} (+https://links.example.test/docs/webhooks)`);
    expect(req.headers["service-event"]).toBe("member.joined");
    expect(req.headers["service-delivery"]).toBe(event!.id);
    const envelope = JSON.parse(req.raw.toString("utf8"));
    expect(envelope).toMatchObject({ id: event!.id, type: "member.joined", workspace: { id: ws.slug, name: ws.name } });
    expect(envelope.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(envelope.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(envelope)).toEqual(["id", "type", "createdAt", "workspace", "data"]);

    const header = req.headers["service-signature"] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Math.abs(Number(/t=(\d+)/.exec(header)![1]) - Date.now() / 1000)).toBeLessThan(10);
    expect(webhooks.verifyWebhookSignature(req.raw, header, ep.secret, { toleranceSeconds: 300 })).toBe(true);
    // Re-encoding the parsed JSON changes the bytes, so it must not verify.
    expect(webhooks.verifyWebhookSignature(JSON.stringify(envelope, null, 1), header, ep.secret)).toBe(false);

    const attempts = await eventually(async () => {
      const a = await attemptsOf(deliveryIds[0]);
      return a.length ? a : null;
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ outcome: "delivered", statusCode: 200, responseBody: "thanks", number: 1, manual: false });
    const d = await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } });
    expect(d).toMatchObject({ status: "delivered", attempts: 1, nextAttemptAt: null });
  });

  it("createdAt is when the change happened (the injectable clock), in UTC, on every attempt", async () => {
    const r = await receiver((_req, i) => (i === 0 ? { status: 500 } : { status: 200 }));
    const { ws } = await endpointFor(r.url("localhost"));
    // The change happens at a pinned instant an hour ago (on lib/clock's clock), in a process whose
    // local time is not UTC; the app hands it off and sends it (twice) now.
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000 + 789);
    const tz = process.env.TZ;
    process.env.TZ = NOT_UTC;
    setClock(() => at);
    let emitted: Awaited<ReturnType<typeof emitEvent>>;
    try {
      expect(at.getHours()).not.toBe(at.getUTCHours()); // the zone took effect
      emitted = await emitEvent(ws);
    } finally {
      setClock(null);
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(emitted.event!.createdAt.toISOString()).toBe(at.toISOString());
    const [first, second] = await r.waitFor(2);
    expect(second.at).toBeGreaterThan(at.getTime() + 3_000_000);
    for (const q of [first, second]) expect(JSON.parse(q.raw.toString("utf8")).createdAt).toBe(at.toISOString());
  });

  it("createdAt of a change made through the app is the time of that change, in UTC", async () => {
    const r = await receiver();
    const { ws } = await endpointFor(r.url("localhost"));
    const { createApiKey } = await import("../../lib/keys/index.ts");
    const { key } = await createApiKey(ws, { name: "created-at" });
    const before = Date.now();
    const res = await call(app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/created-at" } });
    const after = Date.now();
    expect(res.status).toBe(201);
    const [req] = await r.waitFor(1);
    const envelope = JSON.parse(req.raw.toString("utf8"));
    expect(envelope.type).toBe("link.created");
    const createdAt = Date.parse(envelope.createdAt);
    // Within the request that made the change (one machine, one clock), so neither a local time
    // (13:45 off) nor a later hand-off or attempt time.
    expect(createdAt).toBeGreaterThanOrEqual(before);
    expect(createdAt).toBeLessThanOrEqual(after);
    const event = await db().webhookEvent.findFirstOrThrow({ where: { workspaceId: ws.id, type: "link.created" } });
    expect(envelope.createdAt).toBe(event.createdAt.toISOString());
    const link = await db().link.findFirstOrThrow({ where: { workspaceId: ws.id } });
    expect(createdAt).toBeGreaterThanOrEqual(link.createdAt.getTime());
  });

  it("connects to the checked address with TLS verified for the host name (no second lookup)", async () => {
    const r = await receiver();
    // hooks.test exists only in the test's DNS server: the system resolver cannot find it, so a
    // delivery proves the connection went to the address the guard resolved and checked.
    const { ws } = await endpointFor(r.url("hooks.test"));
    const before = dns.queries.filter((q) => q.startsWith("hooks.test")).length;
    const { deliveryIds } = await emitEvent(ws);
    await r.waitFor(1);
    const [a] = await eventually(async () => {
      const x = await attemptsOf(deliveryIds[0]);
      return x.length ? x : null;
    });
    expect(a.outcome).toBe("delivered");
    expect(r.requests[0].headers.host).toBe(`hooks.test:${r.port}`);
    // One resolution per attempt (A and AAAA) by the guard; nothing else asked.
    expect(dns.queries.filter((q) => q.startsWith("hooks.test")).length - before).toBe(2);

    // A certificate that does not name the host fails TLS even though the address is right.
    const { ws: ws2 } = await endpointFor(r.url("wrong.test"));
    const e2 = await emitEvent(ws2);
    const [bad] = await eventually(async () => {
      const x = await attemptsOf(e2.deliveryIds[0]);
      return x.length ? x : null;
    });
    expect(bad.outcome).toBe("tls_error");
    expect(bad.error).toMatch(/ALTNAME|does not match|not in the cert/i);
  });

  it("retries on the schedule with the same bytes and event id, and stops at the first 2xx", async () => {
    const r = await receiver((_req, i) => (i < 2 ? { status: 500, body: "down" } : { status: 204 }));
    const { ws } = await endpointFor(r.url());
    const { event, deliveryIds } = await emitEvent(ws);
    await r.waitFor(3);
    // The delivery's final state: once it is delivered no attempt is due any more, so the
    // receiver's count is final.
    await eventually(
      async () => (await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } })).status === "delivered",
      15_000,
      "delivered",
    );
    expect(r.requests).toHaveLength(3);
    expect(new Set(r.requests.map((q) => q.raw.toString("utf8")))).toEqual(new Set([event!.body]));
    expect(new Set(r.requests.map((q) => q.headers["service-delivery"]))).toEqual(new Set([event!.id]));

    const attempts = await eventually(async () => {
      const a = await attemptsOf(deliveryIds[0]);
      return a.length === 3 ? a : null;
    });
    expect(attempts.map((a) => a.outcome)).toEqual(["http_status", "http_status", "delivered"]);
    expect(attempts.map((a) => a.statusCode)).toEqual([500, 500, 204]);
    expect(attempts[0].responseBody).toBe("down");
    // Each retry waits at least its delay after the previous attempt ended.
    for (let i = 1; i < 3; i++) {
      const prevEnd = attempts[i - 1].startedAt.getTime() + attempts[i - 1].durationMs;
      const gap = attempts[i].startedAt.getTime() - prevEnd;
      expect(gap).toBeGreaterThanOrEqual(DELAYS[i - 1] - 5);
      expect(gap).toBeLessThan(DELAYS[i - 1] + 4000);
    }
    expect(await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } })).toMatchObject({ status: "delivered", attempts: 3 });
  });

  it("makes 7 attempts on permanent failure, on the schedule, then marks the delivery failed", async () => {
    const r = await receiver(() => ({ status: 503 }));
    const { ws } = await endpointFor(r.url());
    const { deliveryIds } = await emitEvent(ws);
    await r.waitFor(7, 20_000);
    const attempts = await eventually(async () => {
      const a = await attemptsOf(deliveryIds[0]);
      return a.length === 7 ? a : null;
    });
    for (let i = 1; i < 7; i++) {
      const gap = attempts[i].startedAt.getTime() - (attempts[i - 1].startedAt.getTime() + attempts[i - 1].durationMs);
      expect(gap).toBeGreaterThanOrEqual(DELAYS[i - 1] - 5);
      expect(gap).toBeLessThan(DELAYS[i - 1] + 4000);
    }
    const d = await eventually(async () => {
      const x = await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } });
      return x.status === "failed" ? x : null;
    });
    // failed is final: nothing more is due, so the receiver's count is final too
    expect(d).toMatchObject({ attempts: 7, nextAttemptAt: null });
    expect(r.requests).toHaveLength(7);
    // Each attempt is signed at its own time: t is the second the attempt was made, not the
    // event's (the last attempt comes at least 4.2 s after the first).
    const signedAt = r.requests.map((q) => Number(/^t=(\d+),/.exec(q.headers["service-signature"] as string)![1]));
    attempts.forEach((a, i) => {
      expect(signedAt[i], `attempt ${i + 1}`).toBeGreaterThanOrEqual(Math.floor(a.startedAt.getTime() / 1000));
      expect(signedAt[i], `attempt ${i + 1}`).toBeLessThanOrEqual(Math.ceil((a.startedAt.getTime() + a.durationMs) / 1000));
    });
    expect(signedAt[6] - signedAt[0]).toBeGreaterThanOrEqual(4);
    const ep = await db().webhookEndpoint.findFirstOrThrow({ where: { workspaceId: ws.id } });
    expect(ep.consecutiveFailures).toBe(1);
    expect(ep.failingSince).not.toBeNull();
  }, 120_000);

  it("records a redirect as a failed attempt and does not follow it", async () => {
    const r = await receiver((req) => (req.path === "/hook" ? { status: 302, headers: { location: "/elsewhere" } } : { status: 200 }));
    const { ws } = await endpointFor(r.url());
    const { deliveryIds } = await emitEvent(ws);
    const [a] = await eventually(async () => {
      const x = await attemptsOf(deliveryIds[0]);
      return x.length ? x : null;
    });
    expect(a).toMatchObject({ outcome: "redirect", statusCode: 302 });
    expect(a.error).toContain("/elsewhere");
    expect(r.requests.map((q) => q.path)).toEqual(["/hook"]);
    expect((await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } })).status).toBe("pending");
  });

  it("records a receiver that never answers as a timeout after WEBHOOK_TIMEOUT_MS", async () => {
    const r = await receiver(() => ({ hang: true }));
    const { ws } = await endpointFor(r.url());
    const { deliveryIds } = await emitEvent(ws);
    const [a] = await eventually(async () => {
      const x = await attemptsOf(deliveryIds[0]);
      return x.length ? x : null;
    });
    expect(a.outcome).toBe("timeout");
    expect(a.statusCode).toBeNull();
    expect(a.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(a.durationMs).toBeLessThan(TIMEOUT_MS + 3000);
  });

  it("records a refused connection", async () => {
    const port = await freePort();
    const { ws } = await endpointFor(`https://127.0.0.1:${port}/hook`);
    const { deliveryIds } = await emitEvent(ws);
    const [a] = await eventually(async () => {
      const x = await attemptsOf(deliveryIds[0]);
      return x.length ? x : null;
    });
    expect(a.outcome).toBe("connection_refused");
    expect(a.error).toContain("ECONNREFUSED");
  });

  it("records answers holding NUL bytes (which PostgreSQL text cannot store) with the bytes replaced, failed and delivered alike", async () => {
    const r = await receiver((_req, i) => (i === 0 ? { status: 500, body: "bad\u0000one" } : { status: 200, body: "ok\u0000done" }));
    const { ws } = await endpointFor(r.url("localhost"));
    const { deliveryIds } = await emitEvent(ws);
    const attempts = await eventually(async () => {
      const x = await attemptsOf(deliveryIds[0]);
      return x.length === 2 ? x : null;
    });
    expect(attempts.map((a) => [a.number, a.outcome, a.statusCode, a.responseBody])).toEqual([
      [1, "http_status", 500, "bad\uFFFDone"],
      [2, "delivered", 200, "ok\uFFFDdone"],
    ]);
    expect(await db().delivery.findUniqueOrThrow({ where: { id: deliveryIds[0] } })).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("records a certificate no one trusts as a TLS error", async () => {
    const r = await receiver(undefined, ca.untrusted(["localhost"]));
    const { ws } = await endpointFor(r.url("localhost"));
    const { deliveryIds } = await emitEvent(ws);
    const [a] = await eventually(async () => {
      const x = await attemptsOf(deliveryIds[0]);
      return x.length ? x : null;
    });
    expect(a.outcome).toBe("tls_error");
    expect(a.error).toMatch(/self[- ]signed|certificate/i);
  });

  it("reads only the first 1 KB of a 5 MB answer, then closes the connection", async () => {
    let written = 0;
    let finished = false;
    let responseClosed!: () => void;
    const closedByApp = new Promise<void>((resolve) => (responseClosed = resolve));
    const big = https.createServer({ key: tlsCert.key, cert: tlsCert.cert }, (req, res) => {
      req.resume();
      req.on("end", async () => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.on("finish", () => (finished = true));
        res.once("close", () => responseClosed());
        const chunk = Buffer.alloc(16 * 1024, "x".charCodeAt(0));
        chunk.write("HEAD-");
        const closed = new Promise((d) => res.once("close", d));
        while (written < 5 * 1024 * 1024 && !res.destroyed) {
          const ok = res.write(chunk);
          written += chunk.length;
          if (!ok) await Promise.race([new Promise((d) => res.once("drain", d)), closed]);
        }
        res.end();
      });
    });
    await new Promise<void>((resolve) => big.listen(0, "127.0.0.1", resolve));
    try {
      const port = (big.address() as net.AddressInfo).port;
      const { ws } = await endpointFor(`https://localhost:${port}/hook`);
      const { deliveryIds } = await emitEvent(ws);
      const [a] = await eventually(async () => {
        const x = await attemptsOf(deliveryIds[0]);
        return x.length ? x : null;
      });
      expect(a.outcome).toBe("delivered");
      expect(a.statusCode).toBe(200);
      expect(Buffer.byteLength(a.responseBody)).toBe(1024);
      expect(a.responseBody.startsWith("HEAD-xxxx")).toBe(true);
      // the app hung up: the answer's stream ends here, and it ended unfinished
      await Promise.race([
        closedByApp,
        new Promise((_, reject) => setTimeout(() => reject(new Error("the app kept the connection open")), 15_000)),
      ]);
      expect(finished).toBe(false);
      expect(written).toBeLessThan(5 * 1024 * 1024);
    } finally {
      big.closeAllConnections();
      big.close();
    }
  });

  it("signs the next retry with a replaced secret", async () => {
    let replaced: string | undefined;
    let wsId = 0;
    let epId = 0;
    const r = await receiver(async (_req, i) => {
      if (i === 0) {
        replaced = await webhooks.replaceSecret(wsId, epId);
        return { status: 500 };
      }
      return { status: 200 };
    });
    const { ws, ep } = await endpointFor(r.url());
    wsId = ws.id;
    epId = ep.id;
    await emitEvent(ws);
    const [first, second] = await r.waitFor(2);
    expect(replaced).toMatch(/^whsec_[0-9A-Za-z]{48}$/);
    expect(webhooks.verifyWebhookSignature(first.raw, first.headers["service-signature"] as string, ep.secret)).toBe(true);
    expect(webhooks.verifyWebhookSignature(second.raw, second.headers["service-signature"] as string, replaced!)).toBe(true);
    expect(webhooks.verifyWebhookSignature(second.raw, second.headers["service-signature"] as string, ep.secret)).toBe(false);
    expect(second.raw.equals(first.raw)).toBe(true);
  });
});

describe("the receivers' help page", () => {
  it("/docs/webhooks documents headers, envelope, events, retries and verification with the tested function", async () => {
    const res = await fetch(`${app.url}/docs/webhooks`);
    expect(res.status).toBe(200);
    const html = (await res.text())
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    expect(html).toContain(`Linkhop-Webhooks/${pkg.version} (+https://links.example.test/docs/webhooks)`);
    for (const text of [
      "Service-Event",
      "Service-Delivery",
      "Service-Signature",
      "evt_",
      "createdAt",
      "link.bulk_created",
      "member.joined",
      "webhook.test",
      "1 minute, 5 minutes, 30 minutes, 2 hours, 6 hours and 12 hours",
    ]) {
      expect(html).toContain(text);
    }
    expect(html).toContain("verifyWebhookSignature(raw, signature, secret, { toleranceSeconds: 300 })");
    expect(html).toContain("export function verifyWebhookSignature(");
  });
});
