import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHit } from "../support/click-hits.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { readCursor } from "../../lib/clicks/feed.ts";
import { ClickPipeline } from "../../lib/clicks/pipeline.ts";
import { postgresClickWriter } from "../../lib/clicks/writer.ts";
import { createLink } from "./redirects-helpers.ts";
import { newWorkspace, readClickedCursors, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// link.clicked through the click pipeline's real flush and the endpoints' cursors (real PostgreSQL):
// which clicks owe a delivery (counted, in scope, on a plan with webhooks), what the event says,
// that what is owed is decided in the flush's own transaction, and that the cursor reader writes
// an event and a delivery per click only as fast as the endpoint's rate lets it be attempted.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let receiver: Receiver;
let db: typeof import("../../lib/db/client.ts").db;
let webhooks: typeof import("../../lib/webhooks/index.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startHttpsReceiver();
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_MS: "3000", INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined });
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  webhooks = await import("../../lib/webhooks/index.ts");
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

const pipelineOn = (p: pg.Pool = pool) => new ClickPipeline(postgresClickWriter(p, new PostgresClickStore(p)), { geo: () => null });

/** The flush, then the cursors read. */
async function flushAndRead(pipeline: ClickPipeline) {
  await pipeline.flush();
  await readClickedCursors(pool);
}

async function clickedEventsOf(endpointId: number) {
  const rows = await db().delivery.findMany({ where: { endpointId }, include: { event: true }, orderBy: { id: "asc" } });
  return rows.map((d) => ({ delivery: d, body: JSON.parse(d.event.body) }));
}

describe("link.clicked", () => {
  it("a counted click on a subscribed link is one signed link.clicked with the click and the link; a bot visit is none", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/clicked"), events: ["link.clicked"] });
    const everything = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/all") });
    // non-ASCII and quotes in the stored body (sent to PostgreSQL as a binary text array)
    const link = await createLink(ws.id, { code: "clk-one", url: 'https://dest.example/straße?q="x"' });
    const pipeline = pipelineOn();
    pipeline.add({ ...clickHit(ws.id, link.id, 0), referrer: "https://news.example/item?id=1", qr: true }, true);
    pipeline.add({ ...clickHit(ws.id, link.id, 1), bot: true, userAgent: "Googlebot/2.1" }, false);
    await flushAndRead(pipeline);

    const got = await clickedEventsOf(ep.id);
    expect(got).toHaveLength(1);
    expect(await db().delivery.count({ where: { endpointId: everything.id } })).toBe(0); // "all" leaves link.clicked out
    const { delivery, body } = got[0];
    expect(delivery).toMatchObject({ status: "pending", attempts: 0 });
    expect(body).toMatchObject({ type: "link.clicked", workspace: { id: ws.slug, name: ws.name } });
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(Object.keys(body.data).sort()).toEqual(["click", "link"]);
    expect(body.data.click).toEqual({
      id: expect.stringMatching(/^clk_[0-9a-f]{24}$/),
      time: expect.any(Number),
      country: null,
      city: null,
      referrerHost: "news.example",
      referrerUrl: "https://news.example/item?id=1",
      device: "desktop",
      browser: "Firefox",
      os: "macOS",
      qr: true,
      target: "destination",
    });
    expect(new Date(body.createdAt).getTime()).toBe(body.data.click.time);
    expect(body.data.link).toMatchObject({ id: link.id, code: "clk-one", url: 'https://dest.example/straße?q="x"', folder: "" });
    expect(JSON.stringify(body)).not.toMatch(/81\.2\.69|visitor/);

    const r = await webhooks.attemptDelivery(delivery.id);
    expect(r).toMatchObject({ delivered: true });
    const req = receiver.requests.find((q) => q.path === "/clicked")!;
    expect(req.headers["service-event"]).toBe("link.clicked");
    expect(req.raw.toString("utf8")).toBe(delivery.event.body);
    const secret = await webhooks.revealSecret(ws.id, ep.id);
    expect(webhooks.verifyWebhookSignature(req.raw, req.headers["service-signature"] as string, secret)).toBe(true);
  });

  it("folder, tag and link scopes each select exactly their links; a link moved out of a folder stops producing them", async () => {
    const ws = await newWorkspace("team");
    const inFolder = await createLink(ws.id, { code: "f-in" });
    const inSub = await createLink(ws.id, { code: "f-sub" });
    const lookalike = await createLink(ws.id, { code: "f-look" });
    const tagged = await createLink(ws.id, { code: "t-in" });
    const named = await createLink(ws.id, { code: "l-in" });
    await db().link.update({ where: { id: inFolder.id }, data: { folder: "campaigns" } });
    await db().link.update({ where: { id: inSub.id }, data: { folder: "campaigns/2026" } });
    await db().link.update({ where: { id: lookalike.id }, data: { folder: "campaigns-old" } });
    const tag = await db().tag.create({ data: { workspaceId: ws.id, name: "Pitch", nameKey: "pitch" } });
    await db().linkTag.create({ data: { linkId: tagged.id, tagId: tag.id } });
    const url = (p: string) => receiver.url("127.0.0.1", p);
    const byFolder = await webhooks.createEndpoint(ws.id, {
      url: url("/f"),
      events: ["link.clicked"],
      clickScope: { folders: ["/campaigns/"] },
    });
    const byTag = await webhooks.createEndpoint(ws.id, { url: url("/t"), events: ["link.clicked"], clickScope: { tags: ["pitch"] } });
    const byLink = await webhooks.createEndpoint(ws.id, {
      url: url("/l"),
      events: ["all", "link.clicked"],
      clickScope: { links: ["l-in"] },
    });
    expect(byFolder.clickScope).toEqual({ kind: "folders", folders: ["campaigns"] });
    expect(byTag.clickScope).toEqual({ kind: "tags", tags: ["Pitch"] });
    expect(byLink).toMatchObject({ events: ["all", "link.clicked"], clickScope: { kind: "links", links: ["l-in"] } });

    const all = [inFolder, inSub, lookalike, tagged, named];
    const pipeline = pipelineOn();
    all.forEach((l, i) => pipeline.add(clickHit(ws.id, l.id, i), true));
    await flushAndRead(pipeline);
    const linksOf = async (id: number) => (await clickedEventsOf(id)).map((e) => e.body.data.link.code).sort();
    expect(await linksOf(byFolder.id)).toEqual(["f-in", "f-sub"]);
    expect(await linksOf(byTag.id)).toEqual(["t-in"]);
    expect(await linksOf(byLink.id)).toEqual(["l-in"]);

    await db().link.update({ where: { id: inSub.id }, data: { folder: "archive" } });
    pipeline.add(clickHit(ws.id, inSub.id, 0), true);
    pipeline.add(clickHit(ws.id, inFolder.id, 1), true);
    await flushAndRead(pipeline);
    expect(await linksOf(byFolder.id)).toEqual(["f-in", "f-in", "f-sub"]);

    await expect(
      webhooks.createEndpoint(ws.id, { url: url("/x"), events: ["link.clicked"], clickScope: { tags: ["nope"] } }),
    ).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining("nope"),
    });
    await expect(
      webhooks.createEndpoint(ws.id, { url: url("/x"), events: ["link.clicked"], clickScope: { tags: ["pitch"], links: ["l-in"] } }),
    ).rejects.toMatchObject({ code: "validation" });
    await expect(
      webhooks.createEndpoint(ws.id, { url: url("/x"), events: ["link.created"], clickScope: { tags: ["pitch"] } }),
    ).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining("link.clicked"),
    });
  });

  it("a plan without webhooks, a disabled endpoint or an inactive workspace gets no click deliveries", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/plan"), events: ["link.clicked"] });
    const link = await createLink(ws.id, { code: "plan-1" });
    await db().workspace.update({ where: { id: ws.id }, data: { plan: "pro" } });
    const pipeline = pipelineOn();
    pipeline.add(clickHit(ws.id, link.id, 0), true);
    await flushAndRead(pipeline);
    expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(0);
    await db().workspace.update({ where: { id: ws.id }, data: { plan: "team" } });
    await webhooks.setEndpointEnabled(ws.id, ep.id, false);
    pipeline.add(clickHit(ws.id, link.id, 1), true);
    await flushAndRead(pipeline);
    expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(0);
    await webhooks.setEndpointEnabled(ws.id, ep.id, true);
    await db().workspace.update({ where: { id: ws.id }, data: { active: false } });
    pipeline.add(clickHit(ws.id, link.id, 2), true);
    await flushAndRead(pipeline);
    expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(0);
    expect((await db().link.findUniqueOrThrow({ where: { id: link.id } })).clicks).toBe(3);
  });

  it("the deliveries are written in the flush's transaction: a flush whose commit fails leaves none, its retry writes each once", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/tx"), events: ["link.clicked"] });
    const link = await createLink(ws.id, { code: "tx-1" });
    // the writer's transactions on connections of the real pool, whose next commit is turned into
    // a rollback and an error (everything before it ran)
    let failCommit = true;
    const failing = {
      async connect() {
        const client = await pool.connect();
        const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
        return Object.assign(Object.create(client) as pg.PoolClient, {
          query: async (text: unknown, ...rest: unknown[]) => {
            if (text === "commit" && failCommit) {
              failCommit = false;
              await query("rollback");
              throw new Error("the commit failed");
            }
            return query(text, ...rest);
          },
        });
      },
    } as unknown as pg.Pool;
    {
      const pipeline = new ClickPipeline(postgresClickWriter(failing, new PostgresClickStore(pool)), { geo: () => null, log: () => {} });
      for (let i = 0; i < 5; i++) pipeline.add(clickHit(ws.id, link.id, i), true);
      await flushAndRead(pipeline);
      expect(failCommit).toBe(false);
      expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(0);
      expect(await db().webhookEvent.count({ where: { workspaceId: ws.id, type: "link.clicked" } })).toBe(0);
      await flushAndRead(pipeline);
      const got = await clickedEventsOf(ep.id);
      expect(got).toHaveLength(5);
      expect(new Set(got.map((g) => g.body.data.click.id)).size).toBe(5);
      const stored = await pool.query(`select count(*)::int as n from analytics.click_event where link_id = $1 and not bot`, [link.id]);
      expect(stored.rows[0].n).toBe(5);
    }
  });

  it("the cursors write an event and a delivery only as fast as the endpoint's rate; the event id is the click's, for every endpoint and resend", async () => {
    const ws = await newWorkspace("team"); // 50 deliveries a second to each endpoint
    const link = await createLink(ws.id, { code: "rate-1" });
    const a = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/rate-a"), events: ["link.clicked"] });
    const b = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/rate-b"), events: ["link.clicked"] });
    const pipeline = pipelineOn();
    for (let i = 0; i < 70; i++) pipeline.add(clickHit(ws.id, link.id, i), true);
    await pipeline.flush();
    expect(await db().delivery.count({ where: { endpointId: { in: [a.id, b.id] } } })).toBe(0); // none at click time

    // a second of the rate each: 50 written, 20 behind each cursor; nothing more while they wait
    await readClickedCursors(pool);
    const behind = async (endpointId: number) => {
      const cursor = (await readCursor(pool, `clicked:${endpointId}`))!;
      return (
        await pool.query(
          `select count(*)::int as n from analytics.click_event where workspace_id = $1 and not bot and (tx, seq) > ($2::xid8, $3::bigint)`,
          [ws.id, cursor.tx, cursor.seq],
        )
      ).rows[0].n as number;
    };
    for (const ep of [a, b]) {
      expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(50);
      expect(await behind(ep.id)).toBe(20);
    }
    // the endpoint took them: the rest comes, each click once
    await db().delivery.updateMany({
      where: { endpointId: { in: [a.id, b.id] } },
      data: { status: "delivered", attempts: 1, nextAttemptAt: null },
    });
    await readClickedCursors(pool);
    const ofA = await clickedEventsOf(a.id);
    const ofB = await clickedEventsOf(b.id);
    for (const [ep, got] of [
      [a, ofA],
      [b, ofB],
    ] as const) {
      expect(got).toHaveLength(70);
      expect(await behind(ep.id)).toBe(0);
      expect(new Set(got.map((g) => g.body.data.click.id)).size).toBe(70);
    }
    // one event per click, shared by both endpoints, its id derived from the click
    expect(await db().webhookEvent.count({ where: { workspaceId: ws.id, type: "link.clicked" } })).toBe(70);
    expect(ofA.map((g) => g.body.id).sort()).toEqual(ofB.map((g) => g.body.id).sort());
    expect(ofA.every((g) => g.body.id === g.delivery.eventId && /^evt_[0-9a-f]{32}$/.test(g.body.id))).toBe(true);
    // a resend sends the frozen body, with the same id
    await webhooks.resendDelivery(ws.id, ofA[0].delivery.id);
    const [sent] = receiver.requests.filter((q) => q.path === "/rate-a");
    expect(sent.raw.toString("utf8")).toBe(ofA[0].delivery.event.body);
    expect(sent.headers["service-delivery"]).toBeDefined();
  });

  it("the Test button can send a sample link.clicked to one endpoint, once, never retried", async () => {
    const ws = await newWorkspace("team");
    const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", "/sample"), events: ["link.created"] });
    const r = await webhooks.sendTestEvent(ep.id, ws.id, "link.clicked");
    expect(r).toMatchObject({ attempted: true, delivered: true, done: true });
    const [req] = receiver.requests.filter((q) => q.path === "/sample");
    expect(req.headers["service-event"]).toBe("link.clicked");
    const body = JSON.parse(req.raw.toString("utf8"));
    expect(body).toMatchObject({
      id: r.eventId,
      type: "link.clicked",
      data: { click: { qr: false, target: "destination" }, link: { id: 0 } },
    });
    expect(Object.keys(body.data.click).sort()).toEqual(
      ["browser", "city", "country", "device", "id", "os", "qr", "referrerHost", "referrerUrl", "target", "time"].sort(),
    );
    expect(await db().delivery.findFirstOrThrow({ where: { eventId: r.eventId } })).toMatchObject({ isTest: true, nextAttemptAt: null });
  });
});
