import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { inPgTransaction } from "../../lib/db/pg-transaction.ts";
import { reserveLinkAllowance } from "../../lib/links/allowance.ts";
import { consumeLiveKeyRateBudget, consumeRateBudget } from "../../lib/ratelimit/index.ts";
import { database } from "../../lib/db/client.ts";
import { findLinksByCode, listLinksPage, verifiedDomainHosts } from "../../lib/links/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The two atomic database steps of the API, called directly against real PostgreSQL under
// concurrency: the per-key rate window (consumeRateBudget) and the monthly link allowance
// (reserveLinkAllowance). No app process: these are the functions themselves.

let drop: () => Promise<void>;
let workspaceId: number;
let keyIds: number[];

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  process.env.DATABASE_POOL_SIZE = "12";
  await useDatabaseInProcess(database.url);
  const ws = await db().workspace.create({ data: { slug: "sql-test", name: "SQL", plan: "team" } });
  workspaceId = ws.id;
  keyIds = [];
  for (let i = 0; i < 4; i++) keyIds.push((await db().apiKey.create({ data: { workspaceId, prefix: `lh_${i}`, hash: `hash-${i}` } })).id);
});
afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await drop?.();
});

describe("consumeRateBudget", () => {
  it("allows exactly `limit` of many concurrent requests in one window, counting Remaining down", async () => {
    const decisions = await Promise.all(Array.from({ length: 100 }, () => consumeRateBudget(keyIds[0], 30, 60)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(30);
    expect(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 30 }, (_, i) => i));
    for (const d of decisions.filter((x) => !x.allowed)) expect(d).toEqual({ allowed: false, limit: 30, remaining: 0 });
    // The stored count stops just past the limit.
    expect((await db().rateWindow.findUniqueOrThrow({ where: { keyId: keyIds[0] } })).count).toBe(31);
  });

  it("keeps each key's budget separate", async () => {
    const [a, b] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => consumeRateBudget(keyIds[1], 5, 60))),
      Promise.all(Array.from({ length: 10 }, () => consumeRateBudget(keyIds[2], 5, 60))),
    ]);
    expect(a.filter((d) => d.allowed)).toHaveLength(5);
    expect(b.filter((d) => d.allowed)).toHaveLength(5);
  });

  it("starts the window at the first request and restores the whole budget when it has ended", async () => {
    const key = keyIds[3];
    for (let i = 0; i < 3; i++) expect((await consumeRateBudget(key, 3, 60)).allowed).toBe(true);
    expect((await consumeRateBudget(key, 3, 60)).allowed).toBe(false);
    // The window's clock is the database's: age the stored window instead of waiting a minute.
    await db().rateWindow.update({ where: { keyId: key }, data: { startedAt: new Date(Date.now() - 59_000) } });
    expect((await consumeRateBudget(key, 3, 60)).allowed).toBe(false); // 59 s in: still this window
    const aged = new Date(Date.now() - 61_000);
    await db().rateWindow.update({ where: { keyId: key }, data: { startedAt: aged } });
    expect(await consumeRateBudget(key, 3, 60)).toEqual({ allowed: true, limit: 3, remaining: 2 });
    const row = await db().rateWindow.findUniqueOrThrow({ where: { keyId: key } });
    expect(row.count).toBe(1);
    expect(row.startedAt.getTime()).toBeGreaterThan(aged.getTime() + 60_000);
  });
});

describe("reserveLinkAllowance", () => {
  // a raw `pg` transaction, as the creates run it (more transactions than connections wait for one)
  const inTx = <T>(fn: (tx: pg.PoolClient) => Promise<unknown>) => inPgTransaction(database().prismaPool, fn) as Promise<T>;

  it("never grants more than the limit to concurrent transactions", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-allow-1", name: "A", plan: "team" } });
    const results = await Promise.all(
      Array.from({ length: 25 }, () => inTx<{ granted: number }>((tx) => reserveLinkAllowance(tx as never, ws.id, 10, 1, "2026-11"))),
    );
    expect(results.reduce((n, r) => n + r.granted, 0)).toBe(10);
    expect(
      (await db().monthlyUsage.findUniqueOrThrow({ where: { workspaceId_month: { workspaceId: ws.id, month: "2026-11" } } })).created,
    ).toBe(10);
  });

  it("grants part of a larger request, reports the count, and spends nothing when the transaction rolls back", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-allow-2", name: "B", plan: "team" } });
    expect(await inTx((tx) => reserveLinkAllowance(tx as never, ws.id, 10, 4, "2026-11"))).toEqual({ granted: 4, current: 4 });
    await expect(
      inTx(async (tx) => {
        await reserveLinkAllowance(tx as never, ws.id, 10, 3, "2026-11");
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await inTx((tx) => reserveLinkAllowance(tx as never, ws.id, 10, 8, "2026-11"))).toEqual({ granted: 6, current: 10 });
    expect(await inTx((tx) => reserveLinkAllowance(tx as never, ws.id, 10, 1, "2026-11"))).toEqual({ granted: 0, current: 10 });
    // A new month starts from zero; a limit of 0 grants nothing.
    expect(await inTx((tx) => reserveLinkAllowance(tx as never, ws.id, 10, 2, "2026-12"))).toEqual({ granted: 2, current: 2 });
    expect(await inTx((tx) => reserveLinkAllowance(tx as never, ws.id, 0, 1, "2027-01"))).toEqual({ granted: 0, current: 0 });
  });

  it("mixes single and bulk reservations under concurrency without passing the limit", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-allow-3", name: "C", plan: "team" } });
    const wants = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 5 : 1));
    const results = await Promise.all(
      wants.map((w) => inTx<{ granted: number }>((tx) => reserveLinkAllowance(tx as never, ws.id, 37, w, "2026-11"))),
    );
    expect(results.reduce((n, r) => n + r.granted, 0)).toBe(37);
  });
});

describe("consumeLiveKeyRateBudget", () => {
  it("counts like consumeRateBudget while the key is live on that plan; otherwise counts nothing and answers null", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-live-1", name: "L", plan: "team" } });
    const key = await db().apiKey.create({ data: { workspaceId: ws.id, prefix: "lh_live", hash: "hash-live-1" } });
    expect(await consumeLiveKeyRateBudget(key.id, "team", 3, 60)).toEqual({ allowed: true, limit: 3, remaining: 2 });
    expect(await consumeLiveKeyRateBudget(key.id, "pro", 3, 60)).toBeNull();
    await db().workspace.update({ where: { id: ws.id }, data: { active: false } });
    expect(await consumeLiveKeyRateBudget(key.id, "team", 3, 60)).toBeNull();
    await db().workspace.update({ where: { id: ws.id }, data: { active: true } });
    await db().apiKey.update({ where: { id: key.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await consumeLiveKeyRateBudget(key.id, "team", 3, 60)).toBeNull();
    await db().apiKey.update({ where: { id: key.id }, data: { expiresAt: null, revokedAt: new Date() } });
    expect(await consumeLiveKeyRateBudget(key.id, "team", 3, 60)).toBeNull();
    // only the first call counted
    expect((await db().rateWindow.findUniqueOrThrow({ where: { keyId: key.id } })).count).toBe(1);
  });

  it("allows exactly `limit` of many concurrent requests, like consumeRateBudget", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-live-2", name: "L2", plan: "team" } });
    const key = await db().apiKey.create({ data: { workspaceId: ws.id, prefix: "lh_live", hash: "hash-live-2" } });
    const decisions = await Promise.all(Array.from({ length: 50 }, () => consumeLiveKeyRateBudget(key.id, "team", 20, 60)));
    expect(decisions.filter((d) => d?.allowed)).toHaveLength(20);
    expect(decisions.filter((d) => d && !d.allowed)).toHaveLength(30);
  });
});

describe("findLinksByCode", () => {
  it("reads every column of a link as Prisma does, with its custom domain's host and its tag names", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-links-1", name: "K", plan: "team" } });
    const other = await db().workspace.create({ data: { slug: "sql-links-2", name: "O", plan: "team" } });
    const domain = await db().domain.create({
      data: { workspaceId: ws.id, host: "go.sql.test", txtToken: "t", verifiedAt: new Date(), verifiedHost: "go.sql.test" },
    });
    const onDefault = await db().link.create({
      data: {
        workspaceId: ws.id,
        code: "same",
        url: "https://example.com/a",
        title: "A",
        notes: "n",
        folder: "f/g",
        startsOn: new Date("2026-01-01T00:00:00.123Z"),
        expiresOn: new Date("2030-01-01T00:00:00Z"),
        maxClicks: 5,
        fallbackUrl: "https://example.com/f",
        passwordHash: "x",
        targeting: { ios: "https://example.com/ios", geo: { DE: "https://example.com/de" } },
      },
    });
    const onCustom = await db().link.create({
      data: { workspaceId: ws.id, domainId: domain.id, domainKey: domain.id, code: "same", url: "https://example.com/b" },
    });
    await db().link.create({ data: { workspaceId: other.id, code: "theirs", url: "https://example.com/c" } });
    const tags = await Promise.all(
      ["beta", "Alpha"].map((name) => db().tag.create({ data: { workspaceId: ws.id, name, nameKey: name.toLowerCase() } })),
    );
    await db().linkTag.createMany({ data: tags.map((t) => ({ linkId: onDefault.id, tagId: t.id })) });

    const pool = database().prismaPool;
    const both = await findLinksByCode(pool, ws.id, "same", null);
    expect(both.map((f) => f.link)).toEqual([onDefault, onCustom]);
    expect(both.map((f) => f.customHost)).toEqual([null, "go.sql.test"]);
    expect(both[0].tagNames.sort()).toEqual(["Alpha", "beta"]);
    expect(both[1].tagNames).toEqual([]);
    const one = await findLinksByCode(pool, ws.id, "same", domain.id);
    expect(one.map((f) => f.link)).toEqual([onCustom]);
    expect(await findLinksByCode(pool, ws.id, "same", 0)).toHaveLength(1);
    // another workspace's link is not found
    expect(await findLinksByCode(pool, ws.id, "theirs", null)).toEqual([]);
    expect(await findLinksByCode(pool, ws.id, "nothing", null)).toEqual([]);
  });
});

describe("listLinksPage", () => {
  it("pages the workspace's links newest first by (createdAt, id), as Prisma orders them, with hosts and tags", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-page-1", name: "P", plan: "team" } });
    const other = await db().workspace.create({ data: { slug: "sql-page-2", name: "Q", plan: "team" } });
    const domain = await db().domain.create({
      data: { workspaceId: ws.id, host: "page.sql.test", txtToken: "t", verifiedAt: new Date(), verifiedHost: "page.sql.test" },
    });
    const at = new Date("2026-05-01T00:00:00.000Z");
    // two links share a creation time: the id decides between them
    for (let i = 0; i < 7; i++)
      await db().link.create({
        data: {
          workspaceId: ws.id,
          code: `p${i}`,
          url: `https://example.com/${i}`,
          createdAt: new Date(at.getTime() + Math.floor(i / 2) * 1000),
          ...(i === 3 ? { domainId: domain.id, domainKey: domain.id } : {}),
        },
      });
    await db().link.create({ data: { workspaceId: other.id, code: "p-other", url: "https://example.com/o" } });
    const tag = await db().tag.create({ data: { workspaceId: ws.id, name: "T", nameKey: "t" } });
    const tagged = await db().link.findFirstOrThrow({ where: { workspaceId: ws.id, code: "p5" } });
    await db().linkTag.create({ data: { linkId: tagged.id, tagId: tag.id } });

    const expected = await db().link.findMany({ where: { workspaceId: ws.id }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    const pool = database().prismaPool;
    const first = await listLinksPage(pool, ws.id, 3, undefined);
    expect(first.map((f) => f.link)).toEqual(expected.slice(0, 4));
    const last = expected[2];
    const second = await listLinksPage(pool, ws.id, 3, { createdAt: last.createdAt, id: last.id });
    expect(second.map((f) => f.link)).toEqual(expected.slice(3, 7));
    const all = await listLinksPage(pool, ws.id, 100, undefined);
    expect(all.find((f) => f.link.code === "p3")?.customHost).toBe("page.sql.test");
    expect(all.find((f) => f.link.code === "p5")?.tagNames).toEqual(["T"]);
    expect(all.filter((f) => f.customHost === null)).toHaveLength(6);
  });
});

describe("verifiedDomainHosts", () => {
  it("names the hosts that are a verified custom domain of any workspace", async () => {
    const ws = await db().workspace.create({ data: { slug: "sql-hosts-1", name: "H", plan: "team" } });
    await db().domain.create({
      data: { workspaceId: ws.id, host: "v.sql.test", txtToken: "t", verifiedAt: new Date(), verifiedHost: "v.sql.test" },
    });
    await db().domain.create({ data: { workspaceId: ws.id, host: "pending.sql.test", txtToken: "t" } });
    const found = await verifiedDomainHosts(database().prismaPool, ["v.sql.test", "pending.sql.test", "none.sql.test"]);
    expect(found).toEqual(["v.sql.test"]);
  });
});
