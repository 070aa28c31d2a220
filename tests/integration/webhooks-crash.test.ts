// A process killed between the commit of a change (with its event and deliveries) and the
// hand-off to the scheduler loses nothing: the rows are the queue. Built-in scheduler: the next
// app process sends it. Inngest: the app's sweep hands it off.
import { execFile } from "node:child_process";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { startApp } from "../support/app.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

const root = path.resolve(import.meta.dirname, "../..");
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;
let db: typeof import("../../lib/db/client.ts").db;
const env = { WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_RETRY_DELAYS: "100ms,100ms,100ms,100ms,100ms,100ms", WEBHOOK_TIMEOUT_MS: "3000" };

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver();
  useEnv({ ...env, DNS_SERVERS: undefined, INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined, INNGEST_DEV: undefined });
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
});

afterAll(async () => {
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

/**
 * A separate process commits a change with an event (withEvents) and is SIGKILLed by its
 * after-commit hook, i.e. after the commit and before any hand-off.
 */
function commitThenDie(ws: { id: number; slug: string; name: string; plan: string }): Promise<{ signal: string | null; stdout: string }> {
  const script = `
    const { withEvents } = await import(${JSON.stringify(path.join(root, "lib/events/index.ts"))});
    const afterCommit = () => process.kill(process.pid, "SIGKILL");
    const ws = JSON.parse(process.env.CRASH_WS);
    await withEvents((tx, emit) => emit(ws, "member.joined", { member: { id: 1, email: "crash@example.test", role: "member", via: "added" } }), { afterCommit });
    console.log("still alive");
  `;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { cwd: root, env: { ...process.env, DATABASE_URL: database.url, CRASH_WS: JSON.stringify(ws) } },
      (err, stdout) => resolve({ signal: (err as { signal?: string } | null)?.signal ?? null, stdout }),
    );
  });
}

describe("crash between commit and hand-off", () => {
  it("built-in scheduler: the delivery goes out when the app starts again", async () => {
    const { createEndpoint } = await import("../../lib/webhooks/index.ts");
    const ws = await newWorkspace("team");
    await createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/builtin") });
    const crashed = await commitThenDie(ws);
    expect(crashed.signal).toBe("SIGKILL");
    expect(crashed.stdout).not.toContain("still alive");
    const [pending] = await db().delivery.findMany({ where: { endpoint: { workspaceId: ws.id } } });
    expect(pending).toMatchObject({ status: "pending", attempts: 0 });

    const app = await startApp(database.url, env);
    try {
      const [req] = await receiver.waitFor(1);
      expect(req.path).toBe("/builtin");
      await eventually(async () => (await db().delivery.findUniqueOrThrow({ where: { id: pending.id } })).status === "delivered");
    } finally {
      await app.stop();
    }
  });

  it("Inngest: the sweep hands off a delivery whose hand-off never happened", async () => {
    const events: { id: string; data: { deliveryId: number } }[] = [];
    const inngestApi = http.createServer((req, res) => {
      let raw = "";
      req.on("data", (c) => (raw += c));
      req.on("end", () => {
        if (req.method === "POST" && req.url?.startsWith("/e/")) {
          const batch = JSON.parse(raw) as typeof events;
          events.push(...batch);
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids: batch.map((e) => e.id), status: 200 }));
        } else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => inngestApi.listen(0, "127.0.0.1", resolve));
    const { createEndpoint } = await import("../../lib/webhooks/index.ts");
    const ws = await newWorkspace("team");
    await createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/inngest") });
    const crashed = await commitThenDie(ws);
    expect(crashed.signal).toBe("SIGKILL");
    const [pending] = await db().delivery.findMany({ where: { endpoint: { workspaceId: ws.id } } });
    expect(pending.handedOffAt).toBeNull();
    // The crash was a while ago (the sweep leaves young deliveries to their own hand-off).
    await db().delivery.update({ where: { id: pending.id }, data: { createdAt: new Date(Date.now() - 120_000) } });

    const app = await startApp(database.url, {
      ...env,
      INNGEST_EVENT_KEY: "test-key",
      INNGEST_BASE_URL: `http://127.0.0.1:${(inngestApi.address() as AddressInfo).port}`,
    });
    try {
      const event = await eventually(async () => events.find((e) => e.data.deliveryId === pending.id), 20_000, "the sweep's hand-off");
      expect(event.id).toBe(`delivery-${pending.id}`);
      await eventually(async () => (await db().delivery.findUniqueOrThrow({ where: { id: pending.id } })).handedOffAt);
      expect(app.logs()).toContain("deliveries run on Inngest");
    } finally {
      await app.stop();
      inngestApi.close();
    }
  });
});
