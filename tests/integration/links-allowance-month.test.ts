import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { setClock } from "../../lib/clock.ts";
import { db } from "../../lib/db/client.ts";
import { createLink } from "../../lib/links/create.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The monthly link allowance counts calendar months in UTC: at 00:00:00 UTC on the 1st a
// workspace that used it all may create links again. Driven through the link service with the
// app's clock (lib/clock.ts) set on both sides of the boundary, no waiting for a real month end.

let drop: () => Promise<void>;
let dir: string;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-month-"));
  const plansFile = path.join(dir, "plans.json");
  const plan = { name: "Two", rateLimit: null, liveKeys: 1, maxLinks: 2, webhookEndpoints: 0, features: ["ApiAccess"] };
  fs.writeFileSync(plansFile, JSON.stringify({ plans: { two: plan } }));
  process.env.PLANS_FILE = plansFile;
  const { resetPlans } = await import("../../lib/plans/index.ts");
  resetPlans();
  await useDatabaseInProcess(database.url);
});
afterEach(() => setClock(null));
afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await drop?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function workspace(slug: string) {
  return db().workspace.create({ data: { slug, name: slug, plan: "two" } });
}

const create = (ws: Awaited<ReturnType<typeof workspace>>, n: number) =>
  createLink(ws, { url: `https://example.com/${n}` } as Parameters<typeof createLink>[1]);

it("a workspace that used its allowance on the last second of a month creates again at 00:00 UTC on the 1st", async () => {
  const ws = await workspace("month-boundary");
  setClock(() => new Date("2027-01-31T23:59:59.999Z"));
  await create(ws, 1);
  await create(ws, 2);
  await expect(create(ws, 3)).rejects.toMatchObject({ code: "quota", extra: { key: "MaxLinks", limit: 2, current: 2 } });

  setClock(() => new Date("2027-02-01T00:00:00.000Z"));
  await create(ws, 4);
  await create(ws, 5);
  await expect(create(ws, 6)).rejects.toMatchObject({ code: "quota", extra: { limit: 2, current: 2 } });

  const usage = await db().monthlyUsage.findMany({ where: { workspaceId: ws.id }, orderBy: { month: "asc" } });
  expect(usage.map((u) => [u.month, u.created])).toEqual([
    ["2027-01", 2],
    ["2027-02", 2],
  ]);
  expect(await db().link.count({ where: { workspaceId: ws.id } })).toBe(4);
});

it("the month is the UTC one, whatever the time zone: 23:30 on the 31st at UTC-1 is already the next month", async () => {
  const ws = await workspace("month-utc");
  setClock(() => new Date("2027-03-31T23:30:00-01:00")); // 2027-04-01T00:30Z
  await create(ws, 1);
  const usage = await db().monthlyUsage.findMany({ where: { workspaceId: ws.id } });
  expect(usage.map((u) => [u.month, u.created])).toEqual([["2027-04", 1]]);
});
