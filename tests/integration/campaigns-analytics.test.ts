import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { parseCsv } from "../../lib/csv/index.ts";
import { client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// Analytics by campaign: the tag filter (repeatable, any case), groupBy=tags, and
// groupBy=utm_source|utm_medium|utm_campaign read from the links' URLs (decoded).

let env: ApiTestEnv;
let pool: pg.Pool;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  env = await startApiTest();
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  const w = await makeWorkspace("team");
  api = client(env.app, w.key);
  const create = async (body: object) => (await api.post("/api/v1/links", body)).body as { id: number };
  const one = await create({ url: "https://example.com/a?utm_source=news&utm_campaign=spring%20sale", tags: ["red", "blue"] });
  const two = await create({ url: "https://example.com/b?utm_source=ads&utm_campaign=spring+sale#x", tags: ["Red"] });
  const three = await create({ url: "https://example.com/c#?utm_source=not-the-query" });
  await api.patch(`/api/v1/tags/${(await api.get("/api/v1/tags")).body.tags.find((t: { name: string }) => t.name === "red").id}`, {
    color: "red",
  });
  const at = Date.now() - 3_600_000;
  const ev = (linkId: number, visitor: number): ClickEvent => ({
    at,
    workspaceId: w.workspace.id,
    linkId,
    domain: "localhost:3000",
    target: "destination",
    country: "US",
    city: null,
    referrerHost: null,
    referrerUrl: null,
    device: "desktop",
    browser: "Chrome",
    os: "macOS",
    bot: false,
    qr: false,
    visitor: String(visitor),
  });
  await new PostgresClickStore(pool).record([ev(one.id, 1), ev(one.id, 1), ev(one.id, 2), ev(two.id, 3), ev(two.id, 4), ev(three.id, 5)]);
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await env?.stop();
});

const get = async (query: string) => {
  const r = await api.get(`/api/v1/analytics?interval=7d&${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const rows = (body: { data: Record<string, unknown>[] }) => body.data.map(({ clicks, visitors, ...k }) => [k, clicks, visitors]);

describe("campaign analytics", () => {
  it("filters by tag: any of the tags given, any case; an unknown tag counts nothing", async () => {
    expect(await get("tag=red")).toMatchObject({ clicks: 5, visitors: 4 });
    expect(await get("tag=blue")).toMatchObject({ clicks: 3, visitors: 2 });
    expect(await get("tag=BLUE&tag=red")).toMatchObject({ clicks: 5, visitors: 4 });
    expect(await get("tag=nope")).toMatchObject({ clicks: 0, visitors: 0 });
    expect(await get("")).toMatchObject({ clicks: 6, visitors: 5 });
  });

  it("groupBy=tags: clicks per tag (a link with two tags counts for both), with the colour", async () => {
    expect(rows(await get("groupBy=tags"))).toEqual([
      [{ tag: "red", color: "red" }, 5, 4],
      [{ tag: "blue", color: "gray" }, 3, 2],
    ]);
    // a tie in clicks and visitors is ordered by name
    expect(rows(await get("groupBy=tags&tag=blue"))).toEqual([
      [{ tag: "blue", color: "gray" }, 3, 2],
      [{ tag: "red", color: "red" }, 3, 2],
    ]);
  });

  it("groupBy=utm_source|utm_medium|utm_campaign: values from the query string only, decoded, null when absent", async () => {
    expect(rows(await get("groupBy=utm_source"))).toEqual([
      [{ utm: "news" }, 3, 2],
      [{ utm: "ads" }, 2, 2],
      [{ utm: null }, 1, 1],
    ]);
    expect(rows(await get("groupBy=utm_campaign"))).toEqual([
      [{ utm: "spring sale" }, 5, 4],
      [{ utm: null }, 1, 1],
    ]);
    expect(rows(await get("groupBy=utm_medium"))).toEqual([[{ utm: null }, 6, 5]]);
    expect(rows(await get("groupBy=utm_source&tag=red&limit=1"))).toEqual([[{ utm: "news" }, 3, 2]]);
  });

  it("the export takes the tag filter; a bad tag is 400", async () => {
    const csv = await api.get("/api/v1/analytics/export?interval=7d&tag=blue");
    expect(csv.status).toBe(200);
    expect(parseCsv(csv.text).rows).toHaveLength(1 + 3);
    const bad = await api.get("/api/v1/analytics?tag=a,b");
    expect(bad.status).toBe(400);
    expect(bad.body.messages[0]).toMatch(/^query tag\.0: must not contain a comma/);
    expect((await api.get("/api/v1/analytics?groupBy=utm_term")).status).toBe(400);
  });
});
