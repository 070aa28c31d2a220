import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { JournalBatch } from "../../lib/clicks/journal.ts";
import { startApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { tcpRelay, type TcpRelay } from "../support/tcp-relay.ts";
import { createLink, request } from "./redirects-helpers.ts";
import { eventually, newWorkspace, startHttpsReceiver, useEnv } from "./webhooks-helpers.ts";

// No click lost in an outage (lib/clicks/journal.ts): the built app reaches PostgreSQL through a TCP
// relay that the test cuts. Clicks served from the redirect cache during the outage are journaled
// under the data folder, the app is stopped during the outage (its last flush goes to the journal
// too), and the next start replays the journal once the database is back: link counters, click
// events and link.clicked deliveries each exactly once, also for a batch replayed twice (a commit
// whose acknowledgement was lost). The outage is as long as many flushes (CLICK_FLUSH_MS=100):
// nothing in the journal path depends on how long it lasts.
// A capped link's clicks in the same outage are decided from what the process knows (its last
// count plus the clicks it let through, lib/clicks/pipeline.ts addHeld): exactly up to the cap,
// the visitors beyond it answered 410 as for any exhausted link, also right after the restart,
// and after the replay the counter and the stored clicks are exactly the cap.

const SHORT = "go.journal.test";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let relay: TcpRelay;
let receiver: Receiver;
let sql: pg.Client;
let dataDir: string;

beforeAll(async () => {
  database = await createTestDatabase();
  relay = await tcpRelay(new URL(database.url));
  receiver = await startHttpsReceiver({ respond: () => ({ status: 200 }) });
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", INNGEST_EVENT_KEY: undefined, INNGEST_BASE_URL: undefined });
  await useDatabaseInProcess(database.url);
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-clicks-journal-"));
});

afterAll(async () => {
  await sql?.end();
  await receiver?.stop();
  await relay?.close();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const one = async (text: string, values: unknown[]) => (await sql.query<{ n: number }>(text, values)).rows[0].n;
const counts = async (linkId: number, endpointId: number) => ({
  counter: await one(`select clicks as n from "Link" where id = $1`, [linkId]),
  events: await one(`select count(*)::int as n from analytics.click_event where link_id = $1`, [linkId]),
  // link.clicked owed: written as deliveries by the endpoint's cursor, or clicks still behind it
  owed: await one(
    `select ((select count(*) from "Delivery" where "endpointId" = $1) +
             (select count(*) from analytics.click_event e, analytics.click_cursor c
               where c.name = 'clicked:' || $1 and e.link_id = $2 and not e.bot and (e.tx, e.seq) > (c.tx, c.seq)))::int as n`,
    [endpointId, linkId],
  ),
});
const delivered = (endpointId: number) =>
  one(`select count(*)::int as n from "Delivery" where "endpointId" = $1 and status = 'delivered'`, [endpointId]);

test("clicks during an outage and a stop in it are journaled, and replayed once after the restart: counters, events, link.clicked deliveries; a capped link stops exactly at its cap", async () => {
  const { createEndpoint } = await import("../../lib/webhooks/index.ts");
  const ws = await newWorkspace("team");
  const link = await createLink(ws.id, { code: "jr-out" });
  const capped = await createLink(ws.id, { code: "jr-cap", maxClicks: 10 });
  const ep = await createEndpoint(ws.id, {
    url: receiver.url("127.0.0.1", "/journal"),
    events: ["link.clicked"],
    clickScope: { links: ["jr-out"] },
  });
  const env = {
    SHORT_DOMAIN: SHORT,
    LINKHOP_DATA_DIR: dataDir,
    CLICK_FLUSH_MS: "100",
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: "100ms,100ms,100ms,100ms,100ms,100ms",
    WEBHOOK_TIMEOUT_MS: "1000",
  };
  const journal = path.join(dataDir, "clicks-journal", new URL(database.url).pathname.slice(1));
  const journaled = () =>
    fs.existsSync(journal)
      ? fs
          .readdirSync(journal)
          .filter((f) => f.endsWith(".json"))
          .sort()
      : [];
  const click = async (port: number) => expect((await request(port, SHORT, "/jr-out")).status).toBe(302);
  const clickCapped = async (port: number) => (await request(port, SHORT, "/jr-cap")).status;
  const cappedStored = async () => ({
    counter: await one(`select clicks as n from "Link" where id = $1`, [capped.id]),
    events: await one(`select count(*)::int as n from analytics.click_event where link_id = $1 and not bot`, [capped.id]),
  });

  const first = await startApp(relay.url, env);
  try {
    for (let i = 0; i < 5; i++) await click(first.port);
    for (let i = 0; i < 2; i++) expect(await clickCapped(first.port)).toBe(302);
    await eventually(async () => (await counts(link.id, ep.id)).events === 5, 15_000, "the clicks before the outage");
    await eventually(async () => (await cappedStored()).events === 2, 15_000, "the capped link's clicks before the outage");
    await eventually(async () => (await delivered(ep.id)) === 5, 15_000, "their link.clicked delivered");

    relay.cut();
    // served from the cache, refused by the database, journaled flush after flush
    for (let i = 0; i < 12; i++) await click(first.port);
    await eventually(async () => journaled().length > 0, 10_000, "a journaled batch");
    // 2 counted before, so 8 more reach the cap of 10: the ninth visitor finds it reached
    const cappedAnswers: number[] = [];
    for (let i = 0; i < 9; i++) cappedAnswers.push(await clickCapped(first.port));
    expect(cappedAnswers).toEqual([...Array(8).fill(302), 410]);
    for (let i = 0; i < 8; i++) await click(first.port);
  } finally {
    // stopped during the outage: the last flush goes to the journal
    await first.stop();
  }
  expect(first.logs()).toMatch(/the database refused a batch of \d+ click events, journaling/);
  expect(first.logs()).toMatch(/click batches \(\d+ bytes\) wait in the journal/);
  const files = journaled();
  const batches = files.map((f) => JSON.parse(fs.readFileSync(path.join(journal, f), "utf8")) as JournalBatch);
  expect(batches.reduce((n, b) => n + b.events.length, 0)).toBe(28);
  expect(batches.flatMap((b) => b.capped ?? []).reduce((n, [id, c]) => n + (id === capped.id ? c : 0), 0)).toBe(8);
  expect(await counts(link.id, ep.id)).toEqual({ counter: 5, events: 5, owed: 5 });
  expect(await cappedStored()).toEqual({ counter: 2, events: 2 });

  // the first batch again, behind the others: as if its commit had gone through unacknowledged
  const last = Number(files.at(-1)!.slice(0, 12));
  fs.copyFileSync(path.join(journal, files[0]), path.join(journal, `${String(last + 1).padStart(12, "0")}-${batches[0].id}.json`));

  relay.restore();
  const second = await startApp(relay.url, env);
  try {
    // the restarted process knows the journal's 8 held clicks whether or not it replayed them yet
    expect(await clickCapped(second.port)).toBe(410);
    await eventually(async () => journaled().length === 0, 15_000, "the journal replayed");
    expect(await clickCapped(second.port)).toBe(410);
    expect(await cappedStored()).toEqual({ counter: 10, events: 10 });
    expect(await counts(link.id, ep.id)).toEqual({ counter: 25, events: 25, owed: 25 });
    for (let i = 0; i < 3; i++) await click(second.port);
    await eventually(async () => (await counts(link.id, ep.id)).events === 28, 15_000, "the clicks after the restart");
    expect(await counts(link.id, ep.id)).toEqual({ counter: 28, events: 28, owed: 28 });
    await eventually(async () => (await delivered(ep.id)) === 28, 15_000, "every link.clicked delivered");
    const sent = receiver.requests.filter((r) => r.path === "/journal").map((r) => JSON.parse(r.raw.toString("utf8")).data.click.id);
    expect(new Set(sent).size).toBe(28);
  } finally {
    await second.stop();
  }
}, 120_000);
