// The link.clicked cursor reader's read (lib/clicks/clicked.ts, readWorkspaceClicksAfter in
// lib/analytics/store/clicked-feed.ts) on real PostgreSQL: it returns at most `room` clicks, it
// examines at most a bounded number of the workspace's feed rows per turn and moves the cursor past
// every row it examined, so a scoped endpoint whose workspace's other links get many clicks passes
// them in one turn (or, past the bound, turn by turn), and still gets every click in its scope
// exactly once, in commit order.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHit } from "../support/click-hits.ts";
import { createTestDatabase, feedRowsFetchedBy, feedSettled, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let receiver: Receiver;
let helpers: typeof import("./webhooks-helpers.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  helpers = await import("./webhooks-helpers.ts");
  receiver = await helpers.startHttpsReceiver();
  helpers.useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined });
  await useDatabaseInProcess(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  await receiver?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

type Position = { tx: string; seq: string };

/** A workspace with a link in the scope, a busy link outside it, and an endpoint receiving clicks of the first only. */
async function scopedSetup() {
  const { db } = await import("../../lib/db/client.ts");
  const webhooks = await import("../../lib/webhooks/index.ts");
  const { createLink } = await import("./redirects-helpers.ts");
  const ws = await helpers.newWorkspace("business");
  const scoped = await createLink(ws.id, { code: `in-${ws.id}` });
  const busy = await createLink(ws.id, { code: `busy-${ws.id}` });
  const ep = await webhooks.createEndpoint(ws.id, { url: receiver.url("127.0.0.1", `/reader-${ws.id}`), events: ["link.clicked"] });
  await db().webhookEndpoint.update({ where: { id: ep.id }, data: { clickLinkIds: [scoped.id] } });
  return { ws, scoped, busy, ep };
}

/** Flushes the clicks, each list in its own transaction (its own place in commit order). */
async function flushEach(...batches: { workspaceId: number; linkId: number; n: number }[][]) {
  const { ClickPipeline } = await import("../../lib/clicks/pipeline.ts");
  const { postgresClickWriter } = await import("../../lib/clicks/writer.ts");
  const { PostgresClickStore } = await import("../../lib/analytics/store/click-store.ts");
  const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), { geo: () => null });
  let i = 0;
  for (const batch of batches) {
    for (const { workspaceId, linkId, n } of batch) for (let k = 0; k < n; k++) pipeline.add(clickHit(workspaceId, linkId, i++), true);
    await pipeline.flush();
  }
  await feedSettled(pool);
}

/** The workspace's feed rows after a position, in commit order. */
async function rowsAfter(workspaceId: number, after: Position) {
  const { rows } = await pool.query<{ link_id: number; tx: string; seq: string }>(
    `select e.link_id, e.tx::text as tx, e.seq::text as seq from analytics.click_event e
      where e.workspace_id = $1 and (e.tx, e.seq) > ($2::xid8, $3::bigint) order by e.tx, e.seq`,
    [workspaceId, after.tx, after.seq],
  );
  return rows;
}

async function cursorOf(endpointId: number): Promise<Position> {
  const { readCursor } = await import("../../lib/clicks/feed.ts");
  return (await readCursor(pool, `clicked:${endpointId}`))!;
}

/** The click ids of the endpoint's link.clicked deliveries, in the order they were written. */
async function deliveredClickIds(endpointId: number): Promise<string[]> {
  const { db } = await import("../../lib/db/client.ts");
  const rows = await db().delivery.findMany({ where: { endpointId }, include: { event: true }, orderBy: { id: "asc" } });
  return rows.map((d) => JSON.parse(d.event.body).data.click.id as string);
}

describe("the link.clicked cursor reader's read", () => {
  it("a scoped endpoint passes the workspace's other clicks in one turn and gets its own, in commit order", async () => {
    const { ClickedReader } = await import("../../lib/clicks/clicked.ts");
    const { clickId } = await import("../../lib/clicks/deliveries.ts");
    const { ws, scoped, busy, ep } = await scopedSetup();
    const on = (linkId: number, n: number) => ({ workspaceId: ws.id, linkId, n });
    await flushEach([on(scoped.id, 2), on(busy.id, 1_500)], [on(busy.id, 1_500), on(scoped.id, 1)]);
    const start = await cursorOf(ep.id);
    const inScope = (await rowsAfter(ws.id, start)).filter((r) => r.link_id === scoped.id);
    expect(inScope).toHaveLength(3);

    const turn = await new ClickedReader(pool).turn();
    expect(turn.deliveries).toBe(3);
    expect(await rowsAfter(ws.id, await cursorOf(ep.id))).toEqual([]); // 3,003 rows passed in one turn
    expect(await deliveredClickIds(ep.id)).toEqual(inScope.map((r) => clickId(r)));
  });

  it("a turn examines at most the bound's rows, moves the cursor exactly to the last of them, and the next turn continues", async () => {
    const { ClickedReader } = await import("../../lib/clicks/clicked.ts");
    const { clickId } = await import("../../lib/clicks/deliveries.ts");
    const { ws, scoped, busy, ep } = await scopedSetup();
    const on = (linkId: number, n: number) => ({ workspaceId: ws.id, linkId, n });
    await flushEach([on(scoped.id, 3), on(busy.id, 117)], [on(scoped.id, 2), on(busy.id, 33)]);
    const start = await cursorOf(ep.id);
    const rows = await rowsAfter(ws.id, start);
    expect(rows).toHaveLength(155);
    const reader = new ClickedReader(pool, { examine: 50 });

    const cursors: Position[] = [];
    const written: number[] = [];
    for (let i = 0; i < 4; i++) {
      written.push((await reader.turn()).deliveries);
      cursors.push(await cursorOf(ep.id));
    }
    const at = (n: number) => ({ tx: rows[n - 1].tx, seq: rows[n - 1].seq });
    expect(cursors.slice(0, 3)).toEqual([at(50), at(100), at(150)]);
    expect(written).toEqual([3, 0, 2, 0]);
    // the fourth turn examined the last 5 rows, under the bound: the cursor moved past all of them
    expect(await rowsAfter(ws.id, cursors[3])).toEqual([]);
    const inScope = rows.filter((r) => r.link_id === scoped.id);
    expect(await deliveredClickIds(ep.id)).toEqual(inScope.map((r) => clickId(r)));
  });

  it("never returns more than the room: the cursor stops at the last click returned", async () => {
    const { readWorkspaceClicksAfter } = await import("../../lib/analytics/store/clicked-feed.ts");
    const { ClickedReader } = await import("../../lib/clicks/clicked.ts");
    const { ws, scoped, busy, ep } = await scopedSetup();
    const on = (linkId: number, n: number) => ({ workspaceId: ws.id, linkId, n });
    await flushEach([on(scoped.id, 10), on(busy.id, 10), on(scoped.id, 10)]);
    const start = await cursorOf(ep.id);
    const inScope = (await rowsAfter(ws.id, start)).filter((r) => r.link_id === scoped.id);
    const scope = { clickFolders: [], clickTagIds: [], clickLinkIds: [scoped.id] };

    for (const room of [1, 3, 19]) {
      const read = await readWorkspaceClicksAfter(pool, ws.id, scope, start, room);
      expect(read.clicks).toHaveLength(room);
      expect(read.clicks.map((c) => c.position)).toEqual(inScope.slice(0, room).map((r) => ({ tx: r.tx, seq: r.seq })));
      expect(read.next).toEqual(read.clicks[room - 1].position);
    }
    // through the reader: a window of 4 writes 4, and the cursor waits behind the 5th
    expect((await new ClickedReader(pool, { window: () => 4 }).turn()).deliveries).toBe(4);
    expect(await cursorOf(ep.id)).toEqual({ tx: inScope[3].tx, seq: inScope[3].seq });
  });

  it("behind a long backlog, a read of the room fetches about the room's feed rows, not the whole window", async () => {
    const { readWorkspaceClicksAfter } = await import("../../lib/analytics/store/clicked-feed.ts");
    const { ws, scoped, ep } = await scopedSetup();
    await flushEach([{ workspaceId: ws.id, linkId: scoped.id, n: 3_000 }]);
    const start = await cursorOf(ep.id);
    const scope = { clickFolders: [], clickTagIds: [], clickLinkIds: [scoped.id] };
    const { result: read, fetched } = await feedRowsFetchedBy(pool, (client) => readWorkspaceClicksAfter(client, ws.id, scope, start, 10));
    expect(read.clicks).toHaveLength(10);
    // the room's 10 rows and a few more, never the 3,000 behind them (the read stops at the room's last click)
    expect(fetched).toBeLessThan(100);
  });
});
