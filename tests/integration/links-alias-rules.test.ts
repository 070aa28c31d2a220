import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// The alias rule (docs/api.md, lib/links/schemas.ts ALIAS_PATTERN): 1 to 40 characters,
// letters, digits, - and _ only. Every refused character class and the 40/41 length edge, on each
// path that takes an alias (create, a bulk row, an edit), over real HTTP: the exact validation body,
// and nothing created or changed. A code with "." or "/" would not survive being a URL path segment
// of the short link, "%" and "+" are decoded differently by clients, and non-ASCII is normalised
// differently by browsers, so each is its own row here rather than one representative.

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

const REFUSED: [string, string][] = [
  ["dot", "a.b"],
  ["only a dot", "."],
  ["two dots", ".."],
  ["slash", "a/b"],
  ["leading slash", "/ab"],
  ["percent", "100%"],
  ["percent-encoded slash", "a%2Fb"],
  ["plus", "a+b"],
  ["tilde", "~ab"],
  ["space inside", "a b"],
  ["leading space", " ab"],
  ["trailing space", "ab "],
  ["tab", "a\tb"],
  ["latin non-ASCII", "käse"],
  ["accented capital", "Éte"],
  ["CJK", "短い"],
  ["emoji", "ab😀"],
  ["full-width digit", "ab１"],
  ["41 characters", "a".repeat(41)],
  ["empty", ""],
];

const ALIAS_ERROR = { error: "validation", messages: ["alias: must be 1 to 40 characters: letters, digits, - and _"] };

/** What a refused request must not have touched: the workspace's links (every column) and its allowance. */
async function written(workspaceId: number) {
  return {
    links: await db().link.findMany({ where: { workspaceId }, orderBy: { id: "asc" } }),
    created: (await db().monthlyUsage.findMany({ where: { workspaceId } })).reduce((n, u) => n + u.created, 0),
  };
}

describe("alias characters and length", () => {
  it("refuses each character class and 41 characters on POST /api/v1/links with the exact body, creating nothing", async () => {
    const { key, workspace } = await makeWorkspace("team");
    const api = client(env.app, key);
    for (const [name, alias] of REFUSED) {
      const a = await api.post("/api/v1/links", { url: "https://example.com/one", alias });
      expect(a.status, name).toBe(400);
      expect(a.body, name).toEqual(ALIAS_ERROR);
    }
    expect(await written(workspace.id)).toEqual({ links: [], created: 0 });
  });

  it("refuses each of them as a bulk row with the single create's body, creating only the valid rows", async () => {
    const { key, workspace } = await makeWorkspace("team");
    const api = client(env.app, key);
    // a valid row first and last: the refusals are per row, not the whole request's
    const rows = [
      { url: "https://example.com/first" },
      ...REFUSED.map(([, alias], i) => ({ url: `https://example.com/bulk/${i}`, alias })),
      { url: "https://example.com/last", alias: "last-row" },
    ];
    const a = await api.post("/api/v1/links/bulk", { links: rows });
    expect(a.status, a.text).toBe(200);
    expect(a.body.results).toHaveLength(rows.length);
    expect(a.body.results[0]).toMatchObject({ index: 0, status: 201 });
    REFUSED.forEach(([name], i) => expect(a.body.results[i + 1], name).toEqual({ index: i + 1, status: 400, error: ALIAS_ERROR }));
    expect(a.body.results[rows.length - 1]).toMatchObject({ index: rows.length - 1, status: 201, link: { code: "last-row" } });
    const { links, created } = await written(workspace.id);
    expect(links.map((l) => l.url)).toEqual(["https://example.com/first", "https://example.com/last"]);
    expect(created).toBe(2);
  });

  it("refuses each of them on PATCH /api/v1/links/{code} with the exact body, changing nothing of the link", async () => {
    const { key, workspace } = await makeWorkspace("team");
    const api = client(env.app, key);
    expect((await api.post("/api/v1/links", { url: "https://example.com/kept", alias: "kept", title: "before" })).status).toBe(201);
    const before = await written(workspace.id);
    for (const [name, alias] of REFUSED) {
      // with another field beside it: a refused alias refuses the whole edit
      const a = await api.patch("/api/v1/links/kept", { alias, title: "after" });
      expect(a.status, name).toBe(400);
      expect(a.body, name).toEqual(ALIAS_ERROR);
    }
    expect(await written(workspace.id)).toEqual(before);
    const read = await api.get("/api/v1/links/kept");
    expect(read.body).toMatchObject({ code: "kept", title: "before" });
  });

  it("accepts 40 characters of every allowed class on create, as a bulk row and on PATCH", async () => {
    const { key, workspace } = await makeWorkspace("team");
    const api = client(env.app, key);
    // letters of both cases, digits, "-" and "_", 40 characters each
    const forty = (tag: string) => `${tag}_aZ-09`.padEnd(40, "x");
    expect(forty("c")).toHaveLength(40);

    const created = await api.post("/api/v1/links", { url: "https://example.com/c", alias: forty("c") });
    expect(created.status, created.text).toBe(201);
    expect(created.body.code).toBe(forty("c"));

    const bulk = await api.post("/api/v1/links/bulk", { links: [{ url: "https://example.com/b", alias: forty("b") }] });
    expect(bulk.body.results).toEqual([
      expect.objectContaining({ index: 0, status: 201, link: expect.objectContaining({ code: forty("b") }) }),
    ]);

    const renamed = await api.patch(`/api/v1/links/${forty("c")}`, { alias: forty("p") });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.code).toBe(forty("p"));

    const codes = (await db().link.findMany({ where: { workspaceId: workspace.id }, orderBy: { id: "asc" } })).map((l) => l.code);
    expect(codes).toEqual([forty("p"), forty("b")]);
  });
});
