import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, db } from "../../lib/db/client.ts";
import type { Link } from "../../lib/db/generated/client.ts";
import type { Queryable } from "../../lib/db/queryable.ts";
import { createStatement, CreateRefused, type CreateRefusal } from "../../lib/links/create-sql.ts";
import type { NewLinkColumns } from "../../lib/links/sql.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// A single create as one statement (lib/links/create-sql.ts createStatement), called directly against real
// PostgreSQL: the link and one unit of the monthly allowance, both or neither, exact under
// concurrency.

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
