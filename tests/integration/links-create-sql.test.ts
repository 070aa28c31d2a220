import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, db } from "../../lib/db/client.ts";
import type { Link } from "../../lib/db/generated/client.ts";
import type { Queryable } from "../../lib/db/queryable.ts";
import { createStatement, CreateRefused, RateStopped, type CreateRefusal } from "../../lib/links/create-sql.ts";
import type { NewLinkColumns } from "../../lib/links/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// A single create as one statement (lib/links/create-sql.ts createStatement), called directly against real
// PostgreSQL: the link and one unit of the monthly allowance, both or neither, exact under
// concurrency; with an API key's rate, the request's count in the same statement, and nothing
// written unless the count allows it.

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

const MONTH = "2026-11";

function columns(workspaceId: number, code: string, more: Partial<NewLinkColumns> = {}): NewLinkColumns {
  return {
    workspaceId,
    domainId: null,
    domainKey: 0,
    code,
    url: "https://example.com/x",
    title: "",
    notes: null,
    folder: "",
    active: true,
    startsOn: null,
    expiresOn: null,
    maxClicks: null,
    fallbackUrl: null,
    passwordHash: null,
    targeting: null,
    routing: null,
    ...more,
  };
}

const used = async (workspaceId: number) =>
  (await db().monthlyUsage.findUnique({ where: { workspaceId_month: { workspaceId, month: MONTH } } }))?.created ?? 0;
const linkCount = (workspaceId: number) => db().link.count({ where: { workspaceId } });
/** The statement's answer as the link or what it refused. */
async function insertLinkReservingAllowance(
  q: Queryable,
  c: NewLinkColumns,
  month: string,
  limit: number,
  destinationHosts: string[] = [],
): Promise<{ link: Link } | { refused: CreateRefusal }> {
  try {
    const r = await createStatement(q, c, { allowance: { month, limit }, tags: [], destinationHosts });
    return { link: r.link };
  } catch (e) {
    if (e instanceof CreateRefused) return { refused: e.reason };
    throw e;
  }
}
const insert = (c: NewLinkColumns, limit: number) => insertLinkReservingAllowance(database().prismaPool, c, MONTH, limit);

describe("createStatement", () => {
  it("inserts the link with every column as Prisma reads it, and takes one unit of the allowance", async () => {
    const ws = await db().workspace.create({ data: { slug: "cs-1", name: "A", plan: "team" } });
    const r = await insert(
      columns(ws.id, "full", {
        title: "T",
        notes: "n",
        folder: "f/g",
        startsOn: new Date("2026-01-01T00:00:00.123Z"),
        expiresOn: new Date("2030-01-01T00:00:00Z"),
        maxClicks: 5,
        fallbackUrl: "https://example.com/f",
        targeting: { devices: { ios: "https://example.com/ios" } },
      }),
      10,
    );
    if (!("link" in r)) throw new Error(`refused: ${r.refused}`);
    expect(r.link).toEqual(await db().link.findUniqueOrThrow({ where: { id: r.link.id } }));
    expect(await used(ws.id)).toBe(1);
    expect("link" in (await insert(columns(ws.id, "second"), 10))).toBe(true);
    expect(await used(ws.id)).toBe(2);
  });

  it("refuses a taken code and a spent allowance, quota first, leaving nothing behind", async () => {
    const ws = await db().workspace.create({ data: { slug: "cs-2", name: "B", plan: "team" } });
    expect("link" in (await insert(columns(ws.id, "taken"), 2))).toBe(true);
    expect(await insert(columns(ws.id, "taken", { url: "https://example.com/other" }), 2)).toEqual({ refused: "taken" });
    expect(await used(ws.id)).toBe(1);
    expect("link" in (await insert(columns(ws.id, "last"), 2))).toBe(true);
    expect(await insert(columns(ws.id, "over"), 2)).toEqual({ refused: "quota" });
    // both refused: the allowance is reported
    expect(await insert(columns(ws.id, "taken"), 2)).toEqual({ refused: "quota" });
    expect(await used(ws.id)).toBe(2);
    expect(await linkCount(ws.id)).toBe(2);
    expect(await db().link.findUniqueOrThrow({ where: { domainKey_code: { domainKey: 0, code: "taken" } } })).toMatchObject({
      url: "https://example.com/x",
    });
  });

  it("grants exactly the allowance left to concurrent creates, and one alias to one of them", async () => {
    const ws = await db().workspace.create({ data: { slug: "cs-3", name: "C", plan: "team" } });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => insert(columns(ws.id, `c-${i}`), 12)));
    expect(results.filter((r) => "link" in r)).toHaveLength(12);
    expect(results.filter((r) => !("link" in r) && r.refused === "quota")).toHaveLength(18);
    expect(await used(ws.id)).toBe(12);
    expect(await linkCount(ws.id)).toBe(12);

    const other = await db().workspace.create({ data: { slug: "cs-4", name: "D", plan: "team" } });
    const same = await Promise.all(Array.from({ length: 20 }, () => insert(columns(other.id, "one-alias"), 100)));
    expect(same.filter((r) => "link" in r)).toHaveLength(1);
    expect(same.filter((r) => !("link" in r) && r.refused === "taken")).toHaveLength(19);
    expect(await used(other.id)).toBe(1);
  });

  it("refuses a destination host that is a verified custom domain before the allowance and the code, leaving nothing behind", async () => {
    const ws = await db().workspace.create({ data: { slug: "cs-6", name: "F", plan: "team" } });
    await db().domain.create({
      data: { workspaceId: ws.id, host: "short.cs6.test", txtToken: "t1", verifiedAt: new Date(), verifiedHost: "short.cs6.test" },
    });
    await db().domain.create({ data: { workspaceId: ws.id, host: "pending.cs6.test", txtToken: "t2" } });
    expect("link" in (await insert(columns(ws.id, "cs6-taken"), 2))).toBe(true);
    const hosts = (more: string[]) => insertLinkReservingAllowance(database().prismaPool, columns(ws.id, "cs6-new"), MONTH, 2, more);
    expect(await hosts(["example.com", "short.cs6.test"])).toEqual({ refused: "destination" });
    // an unverified domain is no short link yet; the code and allowance checks still apply after it
    const fine = await hosts(["example.com", "pending.cs6.test"]);
    expect("link" in fine).toBe(true);
    const refusedFirst = await insertLinkReservingAllowance(database().prismaPool, columns(ws.id, "cs6-taken"), MONTH, 2, [
      "short.cs6.test",
    ]);
    expect(refusedFirst).toEqual({ refused: "destination" });
    expect(await insert(columns(ws.id, "cs6-taken"), 2)).toEqual({ refused: "quota" });
    expect(await used(ws.id)).toBe(2);
    expect(await linkCount(ws.id)).toBe(2);
  });

  it("does not take a limit below one (the caller's other path grants nothing then)", async () => {
    const ws = await db().workspace.create({ data: { slug: "cs-5", name: "E", plan: "team" } });
    await expect(insert(columns(ws.id, "zero"), 0)).rejects.toThrow(/at least 1/);
    expect(await linkCount(ws.id)).toBe(0);
  });
});

describe("createStatement with the request's rate", () => {
  async function keyed(slug: string) {
    const ws = await db().workspace.create({ data: { slug, name: slug, plan: "team" } });
    const key = await db().apiKey.create({ data: { workspaceId: ws.id, prefix: `lh_${slug}`, hash: `hash-${slug}` } });
    return { ws, keyId: key.id };
  }
  const rated = (c: NewLinkColumns, keyId: number, limit: number, o: { tags?: string[]; plan?: string; allowance?: number } = {}) =>
    createStatement(database().prismaPool, c, {
      allowance: { month: MONTH, limit: o.allowance ?? 100 },
      tags: o.tags ?? [],
      destinationHosts: [],
      rate: { keyId, plan: o.plan ?? "team", limit, windowSeconds: 60 },
    });
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => "created",
      (e) => (e instanceof RateStopped ? `stopped ${e.rateCount}` : e instanceof CreateRefused ? e.reason : Promise.reject(e)),
    );
  const count = async (keyId: number) => (await db().rateWindow.findUnique({ where: { keyId } }))?.count ?? 0;
  const tagCount = (workspaceId: number) => db().tag.count({ where: { workspaceId } });

  it("counts each create in its statement; over the limit it writes nothing (link, tags, allowance) and answers the count", async () => {
    const { ws, keyId } = await keyed("cs-r1");
    expect((await rated(columns(ws.id, "r1-a"), keyId, 2, { tags: ["T"] })).rateCount).toBe(1);
    expect((await rated(columns(ws.id, "r1-b"), keyId, 2)).rateCount).toBe(2);
    expect(await outcome(rated(columns(ws.id, "r1-c"), keyId, 2, { tags: ["never"] }))).toBe("stopped 3");
    // over the limit and refused too (taken code, spent allowance): the count answers, nothing is raised
    expect(await outcome(rated(columns(ws.id, "r1-a"), keyId, 2, { allowance: 2 }))).toBe("stopped 3");
    expect([await linkCount(ws.id), await used(ws.id), await tagCount(ws.id), await count(keyId)]).toEqual([2, 2, 1, 3]);
  });

  it("counts and writes nothing for a key that is no longer live or a workspace on another plan", async () => {
    const { ws, keyId } = await keyed("cs-r2");
    expect(await outcome(rated(columns(ws.id, "r2-a"), keyId, 5, { plan: "pro" }))).toBe("stopped null");
    await db().apiKey.update({ where: { id: keyId }, data: { revokedAt: new Date() } });
    expect(await outcome(rated(columns(ws.id, "r2-b"), keyId, 5, { tags: ["never"] }))).toBe("stopped null");
    expect([await linkCount(ws.id), await used(ws.id), await tagCount(ws.id), await count(keyId)]).toEqual([0, 0, 0, 0]);
  });

  it("rolls the count back with the rest when it refuses (taken code, spent allowance)", async () => {
    const { ws, keyId } = await keyed("cs-r3");
    expect(await outcome(rated(columns(ws.id, "r3-a"), keyId, 5, { allowance: 1 }))).toBe("created");
    expect(await outcome(rated(columns(ws.id, "r3-a"), keyId, 5, { allowance: 2 }))).toBe("taken");
    expect(await outcome(rated(columns(ws.id, "r3-b"), keyId, 5, { allowance: 1, tags: ["never"] }))).toBe("quota");
    expect([await linkCount(ws.id), await used(ws.id), await tagCount(ws.id), await count(keyId)]).toEqual([1, 1, 0, 1]);
  });

  it("creates exactly the limit's links from parallel requests of one key", async () => {
    const { ws, keyId } = await keyed("cs-r4");
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => outcome(rated(columns(ws.id, `r4-${i}`), keyId, 5))));
    expect(outcomes.filter((o) => o === "created")).toHaveLength(5);
    expect(outcomes.filter((o) => o === "stopped 6")).toHaveLength(15);
    expect([await linkCount(ws.id), await used(ws.id), await count(keyId)]).toEqual([5, 5, 6]);
  });
});
