import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, db } from "../../lib/db/client.ts";
import { findLinksByCode, findLinksByCodeCountingRate, listLinksPage, listLinksPageCountingRate } from "../../lib/links/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The API's get-link and unfiltered list on a plan with a rate: the link or page read in the
// statement that counts the request (lib/links/sql.ts findLinksByCodeCountingRate,
// listLinksPageCountingRate, lib/ratelimit liveKeyRateCte), against real PostgreSQL.

let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  process.env.DATABASE_POOL_SIZE = "12";
  await useDatabaseInProcess(database.url);
});
afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await drop?.();
});

async function workspaceWithKey(slug: string) {
  const ws = await db().workspace.create({ data: { slug, name: slug, plan: "team" } });
  const key = await db().apiKey.create({ data: { workspaceId: ws.id, prefix: `lh_${slug}`, hash: `hash-${slug}` } });
  return { ws, key };
}

const counted = (workspaceId: number, code: string, keyId: number, limit = 100, plan = "team") =>
  findLinksByCodeCountingRate(database().rateLimit, workspaceId, code, { keyId, plan, limit, windowSeconds: 60 });

describe("findLinksByCodeCountingRate", () => {
  it("reads what findLinksByCode reads (none, one, one per domain) and counts each call once", async () => {
    const { ws, key } = await workspaceWithKey("cr-1");
    const domain = await db().domain.create({
      data: { workspaceId: ws.id, host: "go.cr.test", txtToken: "t", verifiedAt: new Date(), verifiedHost: "go.cr.test" },
    });
    const a = await db().link.create({ data: { workspaceId: ws.id, code: "one", url: "https://example.com/1" } });
    const tag = await db().tag.create({ data: { workspaceId: ws.id, name: "T", nameKey: "t" } });
    await db().linkTag.create({ data: { linkId: a.id, tagId: tag.id } });
    await db().link.create({ data: { workspaceId: ws.id, code: "two", url: "https://example.com/2" } });
    await db().link.create({
      data: { workspaceId: ws.id, code: "two", url: "https://example.com/2b", domainId: domain.id, domainKey: domain.id },
    });
    for (const [code, n] of [
      ["none", 1],
      ["one", 2],
      ["two", 3],
    ] as const) {
      const r = await counted(ws.id, code, key.id);
      expect(r.rateCount).toBe(n);
      expect(r.found).toEqual(await findLinksByCode(database().prismaPool, ws.id, code, null));
    }
    expect((await counted(ws.id, "one", key.id)).found[0].tagNames).toEqual(["T"]);
  });

  it("counts nothing and answers a null count for a revoked key or another plan", async () => {
    const { ws, key } = await workspaceWithKey("cr-2");
    await db().link.create({ data: { workspaceId: ws.id, code: "x", url: "https://example.com/x" } });
    expect((await counted(ws.id, "x", key.id, 100, "pro")).rateCount).toBeNull();
    await db().apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect((await counted(ws.id, "x", key.id)).rateCount).toBeNull();
    expect(await db().rateWindow.findUnique({ where: { keyId: key.id } })).toBeNull();
  });

  it("counts exactly under concurrency, stopping at limit + 1", async () => {
    const { ws, key } = await workspaceWithKey("cr-3");
    const counts = await Promise.all(Array.from({ length: 40 }, () => counted(ws.id, "any", key.id, 15).then((r) => r.rateCount)));
    expect(counts.filter((c) => c! <= 15).sort((x, y) => x! - y!)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(counts.filter((c) => c === 16)).toHaveLength(25);
    expect((await db().rateWindow.findUniqueOrThrow({ where: { keyId: key.id } })).count).toBe(16);
  });
});

const countedPage = (workspaceId: number, keyId: number, size: number, after?: { createdAt: Date; id: number }, plan = "team") =>
  listLinksPageCountingRate(database().rateLimit, workspaceId, size, after, { keyId, plan, limit: 100, windowSeconds: 60 });

describe("listLinksPageCountingRate", () => {
  it("reads the pages listLinksPage reads (empty, first, after a cursor, last) and counts each call once", async () => {
    const { ws, key } = await workspaceWithKey("cr-4");
    const empty = await countedPage(ws.id, key.id, 2);
    expect(empty).toEqual({ rateCount: 1, page: [] });
    const domain = await db().domain.create({
      data: { workspaceId: ws.id, host: "go.cr4.test", txtToken: "t", verifiedAt: new Date(), verifiedHost: "go.cr4.test" },
    });
    const tag = await db().tag.create({ data: { workspaceId: ws.id, name: "T", nameKey: "t" } });
    const same = new Date("2026-11-01T00:00:00Z"); // equal creation times: the id decides the order
    for (let i = 0; i < 5; i++) {
      const l = await db().link.create({
        data: {
          workspaceId: ws.id,
          code: `p${i}`,
          url: `https://example.com/${i}`,
          createdAt: i < 3 ? same : new Date(same.getTime() + i * 1000),
          ...(i === 1 ? { domainId: domain.id, domainKey: domain.id } : {}),
        },
      });
      if (i === 2) await db().linkTag.create({ data: { linkId: l.id, tagId: tag.id } });
    }
    const first = await countedPage(ws.id, key.id, 2);
    expect(first.rateCount).toBe(2);
    expect(first.page).toEqual(await listLinksPage(database().prismaPool, ws.id, 2, undefined));
    expect(first.page.map((r) => r.link.code)).toEqual(["p4", "p3", "p2"]);
    const cursor = { createdAt: first.page[1].link.createdAt, id: first.page[1].link.id };
    const second = await countedPage(ws.id, key.id, 2, cursor);
    expect(second.rateCount).toBe(3);
    expect(second.page).toEqual(await listLinksPage(database().prismaPool, ws.id, 2, cursor));
    expect(second.page.map((r) => [r.link.code, r.customHost, r.tagNames])).toEqual([
      ["p2", null, ["T"]],
      ["p1", "go.cr4.test", []],
      ["p0", null, []],
    ]);
    const last = await countedPage(ws.id, key.id, 2, { createdAt: same, id: second.page[1].link.id });
    expect(last.page.map((r) => r.link.code)).toEqual(["p0"]);
  });

  it("counts nothing and answers a null count for a revoked key or another plan", async () => {
    const { ws, key } = await workspaceWithKey("cr-5");
    await db().link.create({ data: { workspaceId: ws.id, code: "x5", url: "https://example.com/x" } });
    expect((await countedPage(ws.id, key.id, 10, undefined, "pro")).rateCount).toBeNull();
    await db().apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect((await countedPage(ws.id, key.id, 10)).rateCount).toBeNull();
    expect(await db().rateWindow.findUnique({ where: { keyId: key.id } })).toBeNull();
  });
});
