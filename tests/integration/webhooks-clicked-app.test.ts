import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { createLink, request } from "./redirects-helpers.ts";
import { eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// link.clicked end to end in the built app: a browser's redirect is counted, flushed with its
// event and delivery in one transaction, and sent by the built-in scheduler to a real HTTPS
// receiver; a process SIGKILLed around the flush and mid-attempt owes exactly the stored clicks
// (written as deliveries by the endpoint's cursor, or still behind it).

const SHORT = "go.clicked.test";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";
const env = {
  SHORT_DOMAIN: SHORT,
  WEBHOOK_ALLOW_PRIVATE: "1",
  WEBHOOK_RETRY_DELAYS: "100ms,100ms,100ms,100ms,100ms,100ms",
  WEBHOOK_TIMEOUT_MS: "1000",
  CLICK_FLUSH_MS: "300",
};

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let db: typeof import("../../lib/db/client.ts").db;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let receiver: Receiver;
/** while set, the receiver never answers (an attempt in flight when the app is killed) */
let hang = false;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver({ respond: () => (hang ? { hang: true } : { status: 200 }) });
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined });
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  webhooks = await import("../../lib/webhooks/index.ts");
});

afterAll(async () => {
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

const click = (app: RunningApp, code: string, ua = FIREFOX) => request(app.port, SHORT, `/${code}`, { headers: { "user-agent": ua } });
const storedClicks = async (linkId: number) =>
  (await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from analytics.click_event where link_id = ${linkId} and not bot`)[0].n;

/** link.clicked owed to an endpoint: its deliveries, and the workspace's counted clicks behind its cursor. */
async function owed(workspaceId: number, endpointId: number): Promise<number> {
  const [{ n }] = await db().$queryRaw<{ n: number }[]>`
    select ((select count(*) from "Delivery" where "endpointId" = ${endpointId}) +
            (select count(*) from analytics.click_event e, analytics.click_cursor c
              where c.name = ${"clicked:" + endpointId} and e.workspace_id = ${workspaceId} and not e.bot and (e.tx, e.seq) > (c.tx, c.seq)))::int as n`;
  return n;
}

describe("link.clicked in the app", () => {
  it("a browser click on a subscribed link arrives as one signed link.clicked; a bot visit and an unsubscribed link's click do not", async () => {
    const ws = await newWorkspace("team");
    const subscribed = await createLink(ws.id, { code: "app-sub" });
    const other = await createLink(ws.id, { code: "app-other" });
    const ep = await webhooks.createEndpoint(ws.id, {
      url: receiver.url("127.0.0.1", "/app-clicked"),
      events: ["link.clicked"],
      clickScope: { links: ["app-sub"] },
    });
    const app = await startApp(database.url, env);
    try {
      expect((await click(app, "app-sub", "Googlebot/2.1 (+http://www.google.com/bot.html)")).status).toBe(302);
      expect((await click(app, "app-other")).status).toBe(302);
      expect((await click(app, "app-sub")).status).toBe(302);
      const delivered = await eventually(
        async () => (await db().delivery.findMany({ where: { endpointId: ep.id, status: "delivered" }, include: { event: true } }))[0],
        20_000,
        "the click's delivery",
      );
      const got = receiver.requests.filter((r) => r.path === "/app-clicked");
      expect(got).toHaveLength(1);
      expect(got[0].headers["service-event"]).toBe("link.clicked");
      expect(got[0].raw.toString("utf8")).toBe(delivered.event.body);
      const secret = await webhooks.revealSecret(ws.id, ep.id);
      expect(webhooks.verifyWebhookSignature(got[0].raw, got[0].headers["service-signature"] as string, secret)).toBe(true);
      const body = JSON.parse(got[0].raw.toString("utf8"));
      expect(body.data.link).toMatchObject({ id: subscribed.id, code: "app-sub", domain: SHORT });
      expect(body.data.click).toMatchObject({ browser: "Firefox", target: "destination", qr: false });
      // the other two visits were stored (the bot's as a bot) and owe nothing
      await eventually(async () => (await storedClicks(other.id)) === 1, 10_000, "the other link's click");
      expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(1);
      // the receivers' reference shows a link.clicked body
      const docs = await (await fetch(`${app.url}/docs/webhooks`)).text();
      expect(docs).toContain("&quot;type&quot;: &quot;link.clicked&quot;");
      expect(docs).toContain("&quot;referrerHost&quot;");
    } finally {
      await app.stop();
    }
  });

  it("killed after clicks were counted and while attempts were in flight: after a restart, deliveries equal stored clicks, none twice", async () => {
    const ws = await newWorkspace("team");
    const link = await createLink(ws.id, { code: "app-crash" });
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/app-crash"), events: ["link.clicked"] });
    hang = true;
    const first = await startApp(database.url, env);
    try {
      for (let i = 0; i < 20; i++) expect((await click(first, "app-crash")).status).toBe(302);
      // stored and claimed: the receiver holds the first attempts open
      await eventually(async () => (await storedClicks(link.id)) === 20, 20_000, "the first flush");
      await eventually(async () => receiver.requests.some((r) => r.path === "/app-crash"), 20_000, "an attempt in flight");
      // counted, not flushed yet: SIGKILL now
      for (let i = 0; i < 10; i++) expect((await click(first, "app-crash")).status).toBe(302);
    } finally {
      await first.stop("SIGKILL");
    }
    hang = false;
    const stored = await storedClicks(link.id);
    expect(stored).toBeGreaterThanOrEqual(20);
    // each stored click is owed: a delivery written by the endpoint's cursor, or a click still behind it
    expect(await owed(ws.id, ep.id)).toBe(stored);

    const second = await startApp(database.url, env);
    try {
      // claims of the killed process expire (WEBHOOK_TIMEOUT_MS + the lock margin), then are attempted again
      await eventually(
        async () => (await db().delivery.count({ where: { endpointId: ep.id, status: "delivered" } })) === stored,
        90_000,
        "every stored click delivered",
      );
    } finally {
      await second.stop();
    }
    const deliveries = await db().delivery.findMany({ where: { endpointId: ep.id }, include: { event: true } });
    expect(deliveries).toHaveLength(stored);
    const clickIds = deliveries.map((d) => JSON.parse(d.event.body).data.click.id);
    expect(new Set(clickIds).size).toBe(stored);
    const answered = new Set(
      receiver.requests.filter((r) => r.path === "/app-crash").map((r) => JSON.parse(r.raw.toString("utf8")).data.click.id as string),
    );
    expect([...answered].sort()).toEqual([...clickIds].sort());
  }, 150_000);
});
