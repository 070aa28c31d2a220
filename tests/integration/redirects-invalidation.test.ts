import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { db, disconnectDb } from "../../lib/db/client.ts";
import { DEFAULT_CACHE_OPTIONS } from "../../lib/redirects/cache.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { clicksOf, createDomain, createLink, createWorkspace, request, within } from "./redirects-helpers.ts";

// Two app processes on one database: every change is seen by both through its notification
// (LISTEN/NOTIFY), before the cache's safety-net TTL could have let it through, expiry needs no
// change at all, clicks from both add up exactly, and a stop flushes its counts. No check here
// holds a process to a tight clock (2 shared cores): a generous deadline far under the TTL (or,
// for a cached 404, seen before that 404's own TTL ran out) proves the notification did it.
const SHORT = "short.test";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let apps: RunningApp[] = [];
let ws: { id: number };

const location = async (app: RunningApp, host: string, code: string) => {
  const r = await request(app.port, host, `/${code}`);
  return r.status === 302 ? r.location : r.status;
};

/**
 * A generous deadline for a change to reach both processes: far under the cache's TTL of a found
 * link (10 minutes while listening), so only the change's notification can have dropped the entry.
 */
const NOTIFIED_MS = 15_000;

/** Both apps answer `expected` for host/code, asked again until they do (within NOTIFIED_MS). */
async function bothSee(host: string, code: string, expected: string | number) {
  await Promise.all(apps.map((app) => within(NOTIFIED_MS, async () => (await location(app, host, code)) === expected)));
}

/**
 * Both processes LISTEN (so their caches keep the long TTLs, not the 1 s of an outage): each one's
 * connection has run its LISTEN, or the health check that only a listening one runs (lib/db/listen.ts).
 */
async function bothListening(): Promise<boolean> {
  const [{ n }] = await db().$queryRaw<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
     where application_name = 'linkhop-redirects-listen' and datname = current_database()
       and state = 'idle' and (query ilike 'listen %' or query = 'select 1')`;
  return n === 2;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  ws = await createWorkspace();
  apps = await Promise.all([startApp(database.url, { SHORT_DOMAIN: SHORT }), startApp(database.url, { SHORT_DOMAIN: SHORT })]);
  // Warm both processes' redirect path (database connections, code paths) so that the 1 s checks
  // below measure change propagation, not a cold start, whichever test runs first or alone.
  await createLink(ws.id, { code: "warmup" });
  for (const app of apps) for (let i = 0; i < 5; i++) await location(app, SHORT, i % 2 ? "warmup" : "no-such-code");
  await within(NOTIFIED_MS, bothListening);
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await disconnectDb();
  await database?.drop();
});

describe("changes reach every app process by their notifications", () => {
  test("an edit of the destination", async () => {
    const link = await createLink(ws.id, { code: "edit", url: "https://old.example/" });
    for (const app of apps) expect(await location(app, SHORT, "edit")).toBe("https://old.example/"); // both caches warm
    for (const app of apps) expect(await location(app, SHORT, "edit")).toBe("https://old.example/");
    await db().link.update({ where: { id: link.id }, data: { url: "https://new.example/" } });
    await bothSee(SHORT, "edit", "https://new.example/");
  });

  test("switching off, adding a password, deleting", async () => {
    const link = await createLink(ws.id, { code: "life" });
    for (const app of apps) expect(await location(app, SHORT, "life")).toBe("https://dest.example/life");
    await db().link.update({ where: { id: link.id }, data: { active: false } });
    await bothSee(SHORT, "life", 404);
    await db().link.update({ where: { id: link.id }, data: { active: true, passwordHash: "scrypt$32768$8$1$c2FsdA$a2V5" } });
    await bothSee(SHORT, "life", 200);
    await db().link.update({ where: { id: link.id }, data: { passwordHash: null, fallbackUrl: "https://fb.example/", maxClicks: 0 } });
    await bothSee(SHORT, "life", "https://fb.example/");
    await db().link.delete({ where: { id: link.id } });
    await bothSee(SHORT, "life", 404);
  });

  test("a link created after a 404 was cached: seen before the cached 404 could have expired", async () => {
    // A cached "not found" expires after negativeTtlMs (5 s) anyway, so NOTIFIED_MS proves nothing
    // here: the test is that both processes see the link while their 404 (loaded no earlier than
    // `loadedFrom`) is still fresh. A loaded machine may miss that window by being slow rather
    // than by missing the notification, so a miss is tried again with a new code: a process that
    // never gets the notification misses every time.
    expect(await bothListening()).toBe(true);
    const missed: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const code = `later${round}`;
      const loadedFrom = Date.now();
      for (const app of apps) expect(await location(app, SHORT, code)).toBe(404);
      await createLink(ws.id, { code });
      await bothSee(SHORT, code, `https://dest.example/${code}`);
      const took = Date.now() - loadedFrom;
      if (took < DEFAULT_CACHE_OPTIONS.negativeTtlMs) return;
      missed.push(took);
    }
    expect.fail(`in no round did both processes see the new link before their cached 404 could expire (ms: ${missed.join(", ")})`);
  });

  test("a custom domain verified, then switched off", async () => {
    const domain = await createDomain(ws.id, "go.late.test", { verified: false });
    await createLink(ws.id, { code: "dom", domainId: domain.id, url: "https://late.example/" });
    for (const app of apps) expect(await location(app, "go.late.test", "dom")).toBe(404);
    await db().domain.update({ where: { id: domain.id }, data: { verifiedAt: new Date(), verifiedHost: domain.host } });
    await bothSee("go.late.test", "dom", "https://late.example/");
    await db().domain.update({ where: { id: domain.id }, data: { active: false } });
    await bothSee("go.late.test", "dom", 404);
  });

  test("a workspace switched off", async () => {
    const other = await createWorkspace();
    await createLink(other.id, { code: "wsoff" });
    for (const app of apps) expect(await location(app, SHORT, "wsoff")).toBe("https://dest.example/wsoff");
    await db().workspace.update({ where: { id: other.id }, data: { active: false } });
    await bothSee(SHORT, "wsoff", 404);
  });

  test("expiry needs no change: decided per request from the cached expiresOn", async () => {
    const expiresAt = Date.now() + 4000;
    await createLink(ws.id, { code: "soon", expiresOn: new Date(expiresAt) });
    for (const app of apps) expect(await location(app, SHORT, "soon")).toBe("https://dest.example/soon"); // both caches warm
    expect(Date.now(), "the link must still be open after warming the caches for this test to mean anything").toBeLessThan(expiresAt);
    // Nothing changes in the database: each process turns to 410 on its own, from the cached row.
    await Promise.all(apps.map((app) => within(15_000, async () => (await location(app, SHORT, "soon")) === 410)));
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
  });

  test("a lost change listener reconnects, and edits still show meanwhile", async () => {
    const link = await createLink(ws.id, { code: "relisten", url: "https://one.example/" });
    for (const app of apps) expect(await location(app, SHORT, "relisten")).toBe("https://one.example/");
    const admin = new pg.Client({ connectionString: database.url });
    admin.on("error", () => {}); // if this test fails early, dropping the database ends this connection
    await admin.connect();
    const killed = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'linkhop-redirects-listen' and datname = current_database()`,
    );
    expect(killed.rowCount).toBe(2);
    await db().link.update({ where: { id: link.id }, data: { url: "https://two.example/" } });
    await bothSee(SHORT, "relisten", "https://two.example/");
    // both listen again: their new connections have run LISTEN (each drops its cache right after)
    await within(10_000, async () => {
      const r = await admin.query(
        `select count(*)::int as n from pg_stat_activity
          where application_name = 'linkhop-redirects-listen' and datname = current_database()
            and state = 'idle' and query ilike 'listen %'`,
      );
      return r.rows[0].n === 2;
    });
    await admin.end();
    for (const app of apps) expect(await location(app, SHORT, "relisten")).toBe("https://two.example/"); // cache again
    await db().link.update({ where: { id: link.id }, data: { url: "https://three.example/" } });
    await bothSee(SHORT, "relisten", "https://three.example/");
  });
});

describe("clicks across processes", () => {
  test("a cap holds across two processes under parallel load", async () => {
    const link = await createLink(ws.id, {
      code: "cap",
      url: "https://dest.example/cap",
      maxClicks: 50,
      fallbackUrl: "https://fb.example/",
    });
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => request(apps[i % 2].port, SHORT, "/cap")));
    expect(answers.filter((a) => a.location === "https://dest.example/cap").length).toBe(50);
    expect(answers.filter((a) => a.location === "https://fb.example/").length).toBe(150);
    await within(15_000, async () => (await clicksOf(link.id)).events === 50);
    expect(await clicksOf(link.id)).toEqual({ clicks: 50, events: 50 });
  });

  test("uncapped counts from both add up", async () => {
    const link = await createLink(ws.id, { code: "many" });
    await Promise.all(Array.from({ length: 60 }, (_, i) => request(apps[i % 2].port, SHORT, "/many")));
    await within(15_000, async () => (await clicksOf(link.id)).clicks === 60);
    expect(await clicksOf(link.id)).toEqual({ clicks: 60, events: 60 });
  });

  test("a stopping process flushes what it counted", async () => {
    // its own process, flushing rarely: the clicks are still in memory when it is stopped
    const third = await startApp(database.url, { SHORT_DOMAIN: SHORT, CLICK_FLUSH_MS: "600000" });
    try {
      const link = await createLink(ws.id, { code: "flushonstop" });
      await Promise.all(Array.from({ length: 7 }, () => request(third.port, SHORT, "/flushonstop")));
      expect(await clicksOf(link.id)).toEqual({ clicks: 0, events: 0 });
      expect(await third.stop()).toBe(0);
      expect(await clicksOf(link.id)).toEqual({ clicks: 7, events: 7 });
    } finally {
      await third.stop();
    }
  });
});
