import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { clickHit } from "../support/click-hits.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { ClickPipeline } from "../../lib/clicks/pipeline.ts";
import { postgresClickWriter, type ClickEventTable } from "../../lib/clicks/writer.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { createLink, createWorkspace } from "./redirects-helpers.ts";

// The click pipeline's one flush: "Link".clicks and the click events of the same visits are written
// in one transaction, so a failure in either part stores neither, and the retry stores both once;
// a capped link's held clicks (an outage) are added at the cap, and those beyond it left out.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let ws: { id: number };

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  ws = await createWorkspace();
});

afterAll(async () => {
  await pool?.end();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

async function stored(linkId: number) {
  const clicks = (await pool.query(`select clicks from "Link" where id = $1`, [linkId])).rows[0].clicks as number;
  const events = (await pool.query(`select count(*)::int as n from analytics.click_event where link_id = $1`, [linkId])).rows[0]
    .n as number;
  return { clicks, events };
}

test("counters and events are one transaction: when the events fail after the counters were updated, neither is stored; the retry stores both", async () => {
  const link = await createLink(ws.id, { code: "pipe1" });
  const store = new PostgresClickStore(pool);
  let failNext = true;
  // the real store, whose insert fails once after it has run (the counters' update ran before it)
  const failingOnce: ClickEventTable = {
    prepare: (events) => store.prepare(events),
    insertIn: async (q, events) => {
      await store.insertIn(q, events);
      if (failNext) {
        failNext = false;
        throw new Error("the events' insert failed");
      }
    },
    forgetPartitions: () => store.forgetPartitions(),
    visitorSalt: (day, candidate) => store.visitorSalt(day, candidate),
    pruneVisitorSalts: (day) => store.pruneVisitorSalts(day),
  };
  const logs: string[] = [];
  const pipeline = new ClickPipeline(postgresClickWriter(pool, failingOnce), { geo: () => null, log: (l) => logs.push(l) });
  for (let i = 0; i < 6; i++) pipeline.add(clickHit(ws.id, link.id, i), true);
  await pipeline.flush();
  expect(logs.at(-1)).toMatch(/writing 6 click events failed \(1 in a row\), kept/);
  expect(await stored(link.id)).toEqual({ clicks: 0, events: 0 });
  expect([pipeline.backlog, pipeline.uncountedClicks]).toEqual([6, 6]);

  await pipeline.flush();
  expect(await stored(link.id)).toEqual({ clicks: 6, events: 6 });
  expect([pipeline.backlog, pipeline.uncountedClicks]).toEqual([0, 0]);
});

test("a capped link's click (counted on the request path) and a bot visit add events, not counters", async () => {
  const capped = await createLink(ws.id, { code: "pipe2", maxClicks: 10, clicks: 3 });
  const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), { geo: () => null });
  pipeline.add(clickHit(ws.id, capped.id, 0), false);
  pipeline.add({ ...clickHit(ws.id, capped.id, 1), bot: true }, false);
  await pipeline.flush();
  expect(await stored(capped.id)).toEqual({ clicks: 3, events: 2 });
});

test("held clicks of a capped link (let through while the database could not count them) are added at the cap; those beyond it are neither counted nor stored", async () => {
  // 3 counted already, by another process during the same outage: this process knew none of them
  const capped = await createLink(ws.id, { code: "pipe3", maxClicks: 5, clicks: 3 });
  const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), { geo: () => null });
  const letThrough = Array.from({ length: 6 }, (_, i) => pipeline.addHeld(clickHit(ws.id, capped.id, i), 5, 0));
  expect(letThrough).toEqual([true, true, true, true, true, false]); // its own count: 0 + 5 held
  expect(pipeline.heldClicks(capped.id)).toBe(5);
  pipeline.add(clickHit(ws.id, capped.id, 9), false); // counted on the request path before: stored whatever the cap
  await pipeline.flush();
  // the counter took 2 of the 5 held; the first 2 held events are stored, with the one counted before
  expect(await stored(capped.id)).toEqual({ clicks: 5, events: 3 });
  expect(pipeline.heldClicks(capped.id)).toBe(0);
  expect(pipeline.knownClicks(capped.id, 0)).toBe(5); // the count the write left
  expect(pipeline.addHeld(clickHit(ws.id, capped.id, 10), 5, 0)).toBe(false);
});
