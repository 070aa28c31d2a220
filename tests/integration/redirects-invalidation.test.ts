import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { db, disconnectDb } from "../../lib/db/client.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { clicksOf, createDomain, createLink, createWorkspace, request, within } from "./redirects-helpers.ts";

// Two app processes on one database: every change is seen by both within 1 s (LISTEN/NOTIFY),
// expiry needs no change at all, clicks from both add up exactly, and a stop flushes its counts.
const SHORT = "short.test";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let apps: RunningApp[] = [];
let ws: { id: number };

const location = async (app: RunningApp, host: string, code: string) => {
  const r = await request(app.port, host, `/${code}`);
  return r.status === 302 ? r.location : r.status;
};

/** Both apps answer `expected` for host/code within 1 s of now. */
async function bothSeeWithinOneSecond(host: string, code: string, expected: string | number) {
  const took = await Promise.all(apps.map((app) => within(1000, async () => (await location(app, host, code)) === expected)));
  for (const t of took) expect(t).toBeLessThan(1000);
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
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await disconnectDb();
  await database?.drop();
});

describe("changes reach every app process within 1 s", () => {
  test("an edit of the destination", async () => {
    const link = await createLink(ws.id, { code: "edit", url: "https://old.example/" });
    for (const app of apps) expect(await location(app, SHORT, "edit")).toBe("https://old.example/"); // both caches warm
    for (const app of apps) expect(await location(app, SHORT, "edit")).toBe("https://old.example/");
    await db().link.update({ where: { id: link.id }, data: { url: "https://new.example/" } });
    await bothSeeWithinOneSecond(SHORT, "edit", "https://new.example/");
  });

  test("switching off, adding a password, deleting", async () => {
    const link = await createLink(ws.id, { code: "life" });
    for (const app of apps) expect(await location(app, SHORT, "life")).toBe("https://dest.example/life");
    await db().link.update({ where: { id: link.id }, data: { active: false } });
    await bothSeeWithinOneSecond(SHORT, "life", 404);
    await db().link.update({ where: { id: link.id }, data: { active: true, passwordHash: "scrypt$32768$8$1$c2FsdA$a2V5" } });
    await bothSeeWithinOneSecond(SHORT, "life", 200);
    await db().link.update({ where: { id: link.id }, data: { passwordHash: null, fallbackUrl: "https://fb.example/", maxClicks: 0 } });
    await bothSeeWithinOneSecond(SHORT, "life", "https://fb.example/");
    await db().link.delete({ where: { id: link.id } });
    await bothSeeWithinOneSecond(SHORT, "life", 404);
  });

  test("a link created after a 404 was cached", async () => {
    for (const app of apps) expect(await location(app, SHORT, "later")).toBe(404);
    await createLink(ws.id, { code: "later" });
    await bothSeeWithinOneSecond(SHORT, "later", "https://dest.example/later");
  });

  test("a custom domain verified, then switched off", async () => {
    const domain = await createDomain(ws.id, "go.late.test", { verified: false });
    await createLink(ws.id, { code: "dom", domainId: domain.id, url: "https://late.example/" });
    for (const app of apps) expect(await location(app, "go.late.test", "dom")).toBe(404);
    await db().domain.update({ where: { id: domain.id }, data: { verifiedAt: new Date(), verifiedHost: domain.host } });
    await bothSeeWithinOneSecond("go.late.test", "dom", "https://late.example/");
    await db().domain.update({ where: { id: domain.id }, data: { active: false } });
    await bothSeeWithinOneSecond("go.late.test", "dom", 404);
  });

  test("a workspace switched off", async () => {
    const other = await createWorkspace();
    await createLink(other.id, { code: "wsoff" });
    for (const app of apps) expect(await location(app, SHORT, "wsoff")).toBe("https://dest.example/wsoff");
    await db().workspace.update({ where: { id: other.id }, data: { active: false } });
    await bothSeeWithinOneSecond(SHORT, "wsoff", 404);
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

  test("a lost change listener reconnects, and edits still show within 1 s meanwhile", async () => {
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
    await bothSeeWithinOneSecond(SHORT, "relisten", "https://two.example/");
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
    await bothSeeWithinOneSecond(SHORT, "relisten", "https://three.example/");
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
