import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The statements behind the sign-in and sign-up limits (lib/auth/throttle-sql.ts), on a real
// PostgreSQL: parallel takes never pass the limit, the window restarts after it ends, give-backs
// stop at zero, pruning forgets only ended windows.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: typeof import("../../lib/auth/throttle-sql.ts");
let db: typeof import("../../lib/db/client.ts").db;

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  sql = await import("../../lib/auth/throttle-sql.ts");
  db = (await import("../../lib/db/client.ts")).db;
});

afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

const row = (key: string) => db().authThrottle.findUniqueOrThrow({ where: { key } });
const age = (key: string, seconds: number) =>
  db().$executeRaw`update "AuthThrottle" set "startedAt" = now() - make_interval(secs => ${seconds}::int) where key = ${key}`;

describe("takeAttempt", () => {
  test("40 parallel takes with a limit of 10: exactly 10 pass, the rest learn how long to wait", async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => sql.takeAttempt("t:parallel", 10, 900)));
    expect(results.filter((r) => r === null)).toHaveLength(10);
    for (const wait of results.filter((r) => r !== null)) {
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(900);
    }
    expect((await row("t:parallel")).count).toBe(10);
  });

  test("the window starts at the first take and restarts once it has ended", async () => {
    for (let i = 0; i < 3; i++) expect(await sql.takeAttempt("t:window", 3, 900)).toBeNull();
    await age("t:window", 600);
    const wait = await sql.takeAttempt("t:window", 3, 900);
    expect(wait).toBeGreaterThan(290);
    expect(wait).toBeLessThanOrEqual(300);
    await age("t:window", 901);
    expect(await sql.takeAttempt("t:window", 3, 900)).toBeNull();
    expect((await row("t:window")).count).toBe(1);
  });

  test("a give-back frees one take and never goes below zero", async () => {
    for (let i = 0; i < 2; i++) expect(await sql.takeAttempt("t:back", 2, 900)).toBeNull();
    expect(await sql.takeAttempt("t:back", 2, 900)).not.toBeNull();
    await sql.giveBackAttempt("t:back");
    expect(await sql.takeAttempt("t:back", 2, 900)).toBeNull();
    for (let i = 0; i < 5; i++) await sql.giveBackAttempt("t:back");
    expect((await row("t:back")).count).toBe(0);
    await sql.giveBackAttempt("t:never-taken");
    expect(await db().authThrottle.count({ where: { key: "t:never-taken" } })).toBe(0);
  });
});

test("pruning forgets ended windows only", async () => {
  await sql.pruneAttempts(3600); // windows other tests of this file let end: this test counts its own
  await sql.takeAttempt("t:old", 5, 3600);
  await sql.takeAttempt("t:fresh", 5, 3600);
  await age("t:old", 3601);
  expect(await sql.pruneAttempts(3600)).toBe(1);
  expect(await db().authThrottle.count({ where: { key: "t:old" } })).toBe(0);
  expect(await db().authThrottle.count({ where: { key: "t:fresh" } })).toBe(1);
});
