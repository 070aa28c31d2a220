import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startDnsServer, type DnsServer } from "../support/dns-server.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { emitEvent, eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// Connections to an endpoint are kept alive between attempts (lib/net/dialer.ts), but every
// attempt checks the endpoint's name first: once it resolves to a refused address, the kept
// connection is closed and never carries another request. A real DNS server and a real HTTPS
// receiver on loopback; loopback is allowed only while WEBHOOK_ALLOW_PRIVATE is set, so switching it
// off makes the same answer a refused address.

const HOST = "hook.keepalive.test";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;
let dns: DnsServer;
let webhooks: typeof import("../../lib/webhooks/index.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver({ names: [HOST] });
  dns = await startDnsServer({ [HOST]: { A: ["127.0.0.1"] } });
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", DNS_SERVERS: dns.address, WEBHOOK_TIMEOUT_MS: "5000", INNGEST_EVENT_KEY: undefined });
  await useDatabaseInProcess(database.url);
  webhooks = await import("../../lib/webhooks/index.ts");
});

afterAll(async () => {
  useEnv({ WEBHOOK_ALLOW_PRIVATE: undefined, DNS_SERVERS: undefined, WEBHOOK_TEST_ALLOW_PORT: undefined });
  await receiver?.stop();
  await dns?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("kept-alive connections", () => {
  it("are reused between attempts, and closed, not reused, once the endpoint's host resolves to a refused address", async () => {
    const ws = await newWorkspace("team");
    await webhooks.createEndpoint(ws.id, { url: receiver.url(HOST, "/kept") });
    const deliveries = [];
    for (let i = 0; i < 4; i++) deliveries.push((await emitEvent(ws)).deliveryIds[0]);

    expect(await webhooks.attemptDelivery(deliveries[0])).toMatchObject({ delivered: true });
    expect(await webhooks.attemptDelivery(deliveries[1])).toMatchObject({ delivered: true });
    expect(receiver.connections()).toEqual({ accepted: 1, open: 1 });

    // the same answer is now a refused (private) address: the port alone stays allowed
    useEnv({ WEBHOOK_ALLOW_PRIVATE: undefined, WEBHOOK_TEST_ALLOW_PORT: String(receiver.port) });
    expect(await webhooks.attemptDelivery(deliveries[2])).toMatchObject({ attempted: true, outcome: "address_refused" });
    // at once, not after the pool's idle timeout (4 s)
    await eventually(async () => receiver.connections().open === 0, 1500, "the kept connection closed");
    expect(receiver.requests).toHaveLength(2);

    useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TEST_ALLOW_PORT: undefined });
    expect(await webhooks.attemptDelivery(deliveries[3])).toMatchObject({ delivered: true });
    expect(receiver.connections().accepted).toBe(2);
  });
});
