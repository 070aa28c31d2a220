import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { db, disconnectDb } from "../../lib/db/client.ts";
import { addLinkClicks, countCappedClick, readClicks } from "../../lib/clicks/counters.ts";
import {
  consumePasswordGuesses,
  findLinkForRedirect,
  loadServedDomains,
  prunePasswordGuesses,
  refundPasswordGuess,
} from "../../lib/redirects/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { clicksOf, createDomain, createLink, createWorkspace } from "./redirects-helpers.ts";

// The redirect path's SQL functions and the click counters (lib/clicks/counters.ts), called directly against real PostgreSQL.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let ws: { id: number };

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 20 });
  ws = await createWorkspace();
});

afterAll(async () => {
  await pool?.end();
  await disconnectDb();
  await database?.drop();
});

describe("redirect SQL", () => {
  test("findLinkForRedirect: times as unix ms, URLs normalised, targeting parsed, per domain", async () => {
    const d = await createDomain(ws.id, "sql.brand.test");
    const starts = new Date("2026-01-02T03:04:05.678Z");
    await createLink(ws.id, {
      code: "f1",
      url: "https://bücher.example/a b",
      startsOn: starts,
      fallbackUrl: "not a url",
      targeting: { geo: { de: "https://d.example" }, ios: 5 } as object,
    });
    const found = await findLinkForRedirect(pool, 0, "f1");
    expect(found).toMatchObject({
      url: "https://xn--bcher-kva.example/a%20b",
      startsOn: starts.getTime(),
      expiresOn: null,
      fallbackUrl: null,
      targeting: { geo: { DE: "https://d.example/" } },
      active: true,
      clicks: 0,
      maxClicks: null,
      passwordHash: null,
    });
    expect(await findLinkForRedirect(pool, d.id, "f1")).toBeNull();
    expect(await findLinkForRedirect(pool, 0, "F1")).toBeNull(); // codes are case-sensitive
  });

  test("loadServedDomains: verified and active only", async () => {
    await createDomain(ws.id, "sql-pending.brand.test", { verified: false });
    await createDomain(ws.id, "sql-off.brand.test", { active: false });
    const table = await loadServedDomains(pool);
    expect(table.has("sql.brand.test")).toBe(true);
    expect(table.has("sql-pending.brand.test")).toBe(false);
    expect(table.has("sql-off.brand.test")).toBe(false);
  });

  test("countCappedClick never passes the cap under 100 parallel calls", async () => {
    const link = await createLink(ws.id, { code: "c1", maxClicks: 30 });
    const results = await Promise.all(Array.from({ length: 100 }, () => countCappedClick(pool, link.id)));
    expect(results.filter(Boolean).length).toBe(30);
    expect(await readClicks(pool, link.id)).toBe(30);
    expect(await countCappedClick(pool, 999_999)).toBeNull(); // no such link
  });

  test("addLinkClicks: exact totals, added to existing, deleted links skipped, caps held", async () => {
    const a = await createLink(ws.id, { code: "fa", clicks: 10 });
    const gone = await createLink(ws.id, { code: "fgone" });
    const capped = await createLink(ws.id, { code: "fcap", maxClicks: 12, clicks: 10 });
    await db().link.delete({ where: { id: gone.id } });
    await addLinkClicks(
      pool,
      new Map([
        [a.id, 5],
        [gone.id, 3],
        [capped.id, 5],
      ]),
    );
    await addLinkClicks(pool, new Map([[a.id, 2]]));
    expect((await clicksOf(a.id)).clicks).toBe(17);
    expect((await clicksOf(capped.id)).clicks).toBe(12);
    expect(await db().link.count({ where: { id: gone.id } })).toBe(0);
    await addLinkClicks(pool, new Map()); // nothing to do
  });

  test("password guesses: counted atomically per link and visitor and per link, refunded, reset after the window, pruned", async () => {
    const w = { visitorLimit: 10, visitorWindowSeconds: 900, linkWindowSeconds: 300 };
    const guess = (link: number, visitor: string) => consumePasswordGuesses(pool, link, visitor, w);
    const counts = await Promise.all(Array.from({ length: 12 }, () => guess(1, "v1")));
    expect(counts.map((c) => c.visitor).sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    // Only the 10 guesses within the visitor's limit reached the link's count.
    expect(
      counts
        .filter((c) => c.link !== null)
        .map((c) => c.link)
        .sort((x, y) => x! - y!),
    ).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(await guess(1, "v2")).toEqual({ visitor: 1, link: 11 });
    expect(await guess(2, "v1")).toEqual({ visitor: 1, link: 1 });
    await refundPasswordGuess(pool, 1, "v2");
    expect(await guess(1, "v2")).toEqual({ visitor: 1, link: 11 });
    await pool.query(`update "PasswordGuess" set "startedAt" = now() - interval '16 minutes' where "linkId" = 1 and visitor = 'v1'`);
    expect((await guess(1, "v1")).visitor).toBe(1); // a new window for the visitor
    await pool.query(`update "PasswordGuess" set "startedAt" = now() - interval '6 minutes' where "linkId" = 1 and visitor = '*'`);
    expect((await guess(1, "v3")).link).toBe(1); // and for the link
    await pool.query(`update "PasswordGuess" set "startedAt" = now() - interval '16 minutes' where "linkId" = 2`);
    expect(await prunePasswordGuesses(pool, 900)).toBe(2);
  });

  test("the notify triggers: edits notify, click counts do not (except a reset)", async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const seen: string[] = [];
    listener.on("notification", (m) => seen.push(m.payload!));
    await listener.query("listen linkhop_redirects");
    const link = await createLink(ws.id, { code: "n1", maxClicks: 5 });
    await countCappedClick(pool, link.id);
    await addLinkClicks(pool, new Map([[link.id, 1]]));
    await db().link.update({ where: { id: link.id }, data: { title: "renamed" } });
    await db().link.update({ where: { id: link.id }, data: { code: "n2" } });
    await db().link.update({ where: { id: link.id }, data: { clicks: 0 } });
    await db().link.delete({ where: { id: link.id } });
    // A marker sent after all of them: notifications arrive in commit order, so once the marker
    // is here every notification of the changes above is too.
    await pool.query(`select pg_notify('linkhop_redirects', 'end-of-test')`);
    const deadline = Date.now() + 15_000;
    while (!seen.includes("end-of-test") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await listener.end();
    expect(seen).toEqual(["l:0:n1", "l:0:n1", "l:0:n1", "l:0:n2", "l:0:n2", "l:0:n2", "end-of-test"]);
  });
});
