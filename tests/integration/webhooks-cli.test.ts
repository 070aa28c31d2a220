// The admin CLI's webhook commands (shapes of docs/operations.md "Admin CLI"), run as the real `npm run admin` program.
import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { type Receiver } from "../support/https-receiver.ts";
import { verifyWebhookSignature } from "../../lib/webhooks/verify.ts";
import { newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

const root = path.resolve(import.meta.dirname, "../..");
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let receiver: Receiver;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver({ respond: () => ({ status: 202, body: "accepted" }) });
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
});

afterAll(async () => {
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

function cli(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeFlags, adminCli, ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE: "1" } },
      (err, stdout) => {
        const last = stdout.trim().split("\n").pop() ?? "{}";
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, json: JSON.parse(last) });
      },
    );
  });
}

// Each CLI run is a new node process (the Prisma client, a connection): 3.5 s on an idle
// 2-core machine, up to 15 s when the cores are shared with many test processes; three in a row
// came close to the default 60 s there.
const THREE_CLI_RUNS_MS = 120_000;

describe("admin CLI webhook commands", () => {
  it(
    "webhook:create prints { id, url, secret, events } and webhook:test prints { delivered, status }",
    async () => {
      const ws = await newWorkspace("team");
      const all = await cli("webhook:create", "--slug", ws.slug, "--url", receiver.url("127.0.0.1", "/cli"));
      expect(all.code).toBe(0);
      expect(Object.keys(all.json).sort()).toEqual(["events", "id", "secret", "url"]);
      expect(all.json).toMatchObject({ url: receiver.url("127.0.0.1", "/cli"), events: "all" });
      expect(all.json.secret).toMatch(/^whsec_[0-9A-Za-z]{48}$/);

      const some = await cli(
        "webhook:create",
        "--slug",
        ws.slug,
        "--url",
        receiver.url("127.0.0.1", "/some"),
        "--events",
        "link.created,member.joined",
      );
      expect(some.json.events).toEqual(["link.created", "member.joined"]);

      const test = await cli("webhook:test", "--id", String(all.json.id));
      expect(test).toEqual({ code: 0, json: { delivered: true, status: 202 } });
      const [req] = receiver.requests.filter((r) => r.path === "/cli");
      expect(req.headers["service-event"]).toBe("webhook.test");
      expect(verifyWebhookSignature(req.raw, req.headers["service-signature"] as string, all.json.secret as string)).toBe(true);
    },
    THREE_CLI_RUNS_MS,
  );

  it(
    "refuses unknown event types, plans without webhooks and unknown endpoints",
    async () => {
      const ws = await newWorkspace("team");
      const bad = await cli("webhook:create", "--slug", ws.slug, "--url", receiver.url(), "--events", "link.created,nope");
      expect(bad.code).toBe(1);
      expect(bad.json.error).toBe("validation");

      const free = await newWorkspace("free");
      const refused = await cli("webhook:create", "--slug", free.slug, "--url", receiver.url());
      expect(refused.code).toBe(1);
      expect(refused.json.error).toBe("feature");

      const missing = await cli("webhook:test", "--id", "999999");
      expect(missing).toMatchObject({ code: 1, json: { error: "not_found" } });
    },
    THREE_CLI_RUNS_MS,
  );

  it(
    "webhook:create --events link.clicked covers all links unless --folders, --tags or --links narrows it",
    async () => {
      const { db } = await import("../../lib/db/client.ts");
      const ws = await newWorkspace("team");
      await db().link.create({ data: { workspaceId: ws.id, code: "cli-l1", url: "https://example.com/" } });
      const all = await cli("webhook:create", "--slug", ws.slug, "--url", receiver.url("127.0.0.1", "/cli-c1"), "--events", "link.clicked");
      expect(all).toMatchObject({ code: 0, json: { events: ["link.clicked"] } });
      const folders = await cli(
        "webhook:create",
        ...["--slug", ws.slug, "--url", receiver.url("127.0.0.1", "/cli-c2"), "--events", "link.clicked", "--folders", "a,b/c"],
      );
      expect(folders.code).toBe(0);
      const links = await cli(
        "webhook:create",
        ...["--slug", ws.slug, "--url", receiver.url("127.0.0.1", "/cli-c3"), "--events", "all,link.clicked", "--links", "cli-l1"],
      );
      expect(links).toMatchObject({ code: 0, json: { events: ["all", "link.clicked"] } });
      const stored = await db().webhookEndpoint.findMany({ where: { workspaceId: ws.id }, orderBy: { id: "asc" } });
      expect(stored.map((e) => [e.clickFolders, e.clickTagIds, e.clickLinkIds.length])).toEqual([
        [[], [], 0],
        [["a", "b/c"], [], 0],
        [[], [], 1],
      ]);
    },
    THREE_CLI_RUNS_MS,
  );
});
