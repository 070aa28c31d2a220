import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, db } from "../../lib/db/client.ts";
import { findLinksByCode, findLinksByCodeCountingRate } from "../../lib/links/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The API's get-link on a plan with a rate: the link read in the statement that counts the request
// (lib/links/sql.ts findLinksByCodeCountingRate, lib/ratelimit liveKeyRateCte), against real
// PostgreSQL.

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
