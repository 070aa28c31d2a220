import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCsv } from "../../lib/csv/index.ts";
import { readImportRecords } from "../../lib/csv/import-file.ts";
import { IMPORT_COLUMNS, toLinkBody } from "../../lib/links/csv-rows.ts";
import { db } from "../../lib/db/client.ts";
import { exportBatches } from "../../lib/links/export.ts";
import { client, makeDomain, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// GET /api/v1/links/export: the import's columns, filters as the list, cells protected against
// formulas, batches; an export imports into another workspace as identical links; the exports of
// Bitly, Rebrandly, Short.io and Dub import with their documented columns mapped.

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

async function workspace(plan = "team") {
  const w = await makeWorkspace(plan);
  return { ...w, api: client(env.app, w.key) };
}

type Api = Awaited<ReturnType<typeof workspace>>["api"];

/** What the import page does with a file: read (detecting other services' formats), convert, send in parts of 100. */
async function importCsv(api: Api, text: string) {
  const { records, error, detection } = readImportRecords(text);
  expect(error).toBeNull();
  const rows = records.map((r, i) => toLinkBody(r, i + 1));
  const bodies = rows.map((r) => {
    if (!("body" in r)) throw new Error(`row ${r.row}: ${r.errors.join(" ")}`);
    return r.body;
  });
  const results = [];
  for (let i = 0; i < bodies.length; i += 100) {
    const r = await api.post("/api/v1/links/bulk", { links: bodies.slice(i, i + 100) });
    expect(r.status).toBe(200);
    results.push(...r.body.results);
  }
  return { detection, results };
}

async function allLinks(api: Api) {
  const out = [];
  let cursor: string | null = null;
  do {
    const page: { body: { links: Record<string, unknown>[]; nextCursor: string | null } } = await api.get(
      `/api/v1/links?size=100${cursor ? `&cursor=${cursor}` : ""}`,
    );
    out.push(...page.body.links);
    cursor = page.body.nextCursor;
  } while (cursor);
  return out;
}

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../fixtures/import", name), "utf8");

describe("export", () => {
  it("streams CSV with the import's columns, oldest first, as a download", async () => {
    const { api } = await workspace();
    await api.post("/api/v1/links", { url: "https://example.com/old", alias: "old-one" });
    await api.post("/api/v1/links", { url: "https://example.com/new", alias: "new-one", tags: ["b", "a"], title: 'Say "hi", then, go' });
    const r = await api.get("/api/v1/links/export");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(r.headers["content-disposition"]).toMatch(/^attachment; filename="linkhop-api-[\w-]+-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(r.headers["x-ratelimit-limit"]).toBe("600");
    const rows = parseCsv(r.text).rows;
    expect(rows[0]).toEqual([...IMPORT_COLUMNS]);
    expect(rows.slice(1).map((x) => x[1])).toEqual(["old-one", "new-one"]);
    expect(rows[2]).toEqual([
      "https://example.com/new",
      "new-one",
      "",
      'Say "hi", then, go',
      "",
      "",
      "true",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "",
      "a, b",
      "false",
      "false",
      "",
      "",
      "",
    ]);
    expect(r.text.endsWith("\r\n")).toBe(true);
  });

  it("applies the list's filters: q, folder, tag (repeatable), domain; a foreign domain is 400 JSON", async () => {
    const { api, workspace: w } = await workspace();
    await makeDomain(w.id, `go-${w.id}.example.net`);
    await api.post("/api/v1/links", { url: "https://example.com/1", alias: "f1", folder: "mkt", tags: ["x"] });
    await api.post("/api/v1/links", { url: "https://example.com/2", alias: "f2", folder: "mkt/2026", tags: ["y"] });
    await api.post("/api/v1/links", { url: "https://example.com/3", alias: "f3", domain: `go-${w.id}.example.net` });
    const codes = async (q: string) =>
      parseCsv((await api.get(`/api/v1/links/export${q}`)).text)
        .rows.slice(1)
        .map((r) => r[1])
        .sort();
    expect(await codes("?folder=mkt")).toEqual(["f1", "f2"]);
    expect(await codes("?tag=x")).toEqual(["f1"]);
    expect(await codes("?tag=X&tag=y")).toEqual(["f1", "f2"]);
    expect(await codes("?q=example.com/3")).toEqual(["f3"]);
    expect(await codes(`?domain=go-${w.id}.example.net`)).toEqual(["f3"]);
    expect(await codes("?domain=localhost:3000")).toEqual(["f1", "f2"]);
    const bad = await api.get("/api/v1/links/export?domain=elsewhere.example");
    expect(bad.status).toBe(400);
    expect(bad.headers["content-type"]).toMatch(/application\/json/);
    expect(bad.body.error).toBe("validation");
    expect((await api.get("/api/v1/links/export?size=5")).status).toBe(400);
    expect((await client(env.app, null).get("/api/v1/links/export")).status).toBe(401);
    // the custom domain's host is in the domain column; the default domain's is empty
    const all = parseCsv((await api.get("/api/v1/links/export")).text).rows;
    expect(Object.fromEntries(all.slice(1).map((r) => [r[1], r[2]]))).toEqual({ f1: "", f2: "", f3: `go-${w.id}.example.net` });
  });

  it("neutralises cells a spreadsheet would run as formulas, and the import reads them back unchanged", async () => {
    const { api } = await workspace();
    const link = (
      await api.post("/api/v1/links", {
        url: "https://example.com/f",
        title: '=HYPERLINK("https://evil.test","x")',
        notes: "+1 and -2",
        tags: ["@team", "-minus"],
      })
    ).body;
    const text = (await api.get("/api/v1/links/export")).text;
    const row = parseCsv(text).rows[1];
    expect(row[3]).toBe(`'=HYPERLINK("https://evil.test","x")`);
    expect(row[4]).toBe("'+1 and -2");
    expect(row[15]).toBe("'-minus, @team");
    const body = toLinkBody(readImportRecords(text).records[0], 1);
    expect(body).toEqual({ row: 1, body: expect.objectContaining({ title: link.title, notes: link.notes, tags: ["-minus", "@team"] }) });
  });

  it("reads the links in batches: the generator yields one batch of at most the batch size at a time", async () => {
    const { workspace: w } = await workspace();
    await db()
      .$executeRaw`INSERT INTO "Link" ("workspaceId", "code", "url", "createdAt") SELECT ${w.id}::int, 'b' || g || '-' || ${w.id}::int, 'https://example.com/' || g, now() - (g || ' seconds')::interval FROM generate_series(1, 2350) g`;
    const sizes: number[] = [];
    const codes: string[] = [];
    for await (const batch of await exportBatches(w, {}, 1000)) {
      sizes.push(batch.length);
      codes.push(...batch.map((r) => String(r[1])));
    }
    expect(sizes).toEqual([1000, 1000, 350]);
    expect(codes[0]).toBe(`b2350-${w.id}`);
    expect(codes[2349]).toBe(`b1-${w.id}`);
    expect(new Set(codes).size).toBe(2350);
  });

  it("export, then import into another workspace: identical links (codes, fields, tags, targeting)", async () => {
    const a = await workspace();
    const now = Math.floor(Date.now() / 1000);
    const bodies = [
      { url: "https://example.com/plain" },
      {
        url: "https://example.com/p?x=1#frag",
        alias: "rt-full",
        title: 'Full, "quoted"\nline',
        notes: "=not a formula",
        folder: "mkt/2026",
        active: false,
        startsOn: now - 60,
        expiresOn: now + 86_400,
        maxClicks: 50,
        fallbackUrl: "https://example.com/fallback",
        tags: ["Spring", "sale"],
        utm: { source: "news" },
      },
      {
        url: "https://example.com/t",
        alias: "rt-target",
        targeting: {
          ios: "https://apps.apple.com/x",
          android: "https://play.google.com/x",
          geo: { DE: "https://example.de", US: "https://example.com/us" },
        },
        tags: ["-odd"],
      },
      { url: "https://example.com/é?q=a%20b", title: "  spaced  " },
    ];
    for (const b of bodies) expect((await a.api.post("/api/v1/links", b)).status).toBe(201);
    const before = await allLinks(a.api);
    const targetingBefore = await db().link.findMany({ where: { workspaceId: a.workspace.id }, select: { code: true, targeting: true } });
    const csv = (await a.api.get("/api/v1/links/export")).text;

    // codes are unique per domain: the links move, so free them first
    for (const l of before) expect((await a.api.delete(`/api/v1/links/${l.code}`)).status).toBe(200);
    const b = await workspace();
    const { detection, results } = await importCsv(b.api, csv);
    expect(detection).toBeNull();
    expect(results.map((r: { status: number }) => r.status)).toEqual([201, 201, 201, 201]);
    const after = await allLinks(b.api);

    const comparable = (l: Record<string, unknown>) => {
      const { id: _i, createdOn: _c, ...rest } = l;
      return rest;
    };
    const byCode = (ls: Record<string, unknown>[]) => Object.fromEntries(ls.map((l) => [l.code, comparable(l)]));
    expect(byCode(after)).toEqual(byCode(before));
    const targetingAfter = await db().link.findMany({ where: { workspaceId: b.workspace.id }, select: { code: true, targeting: true } });
    const sortByCode = (x: { code: string }[]) => [...x].sort((p, q) => (p.code < q.code ? -1 : 1));
    expect(sortByCode(targetingAfter)).toEqual(sortByCode(targetingBefore));
    // and the export of the new workspace is the same file (oldest first: the import keeps the order)
    expect((await b.api.get("/api/v1/links/export")).text).toBe(csv);
  });
});

describe("import from other services", () => {
  const cases: { file: string; format: string; expected: Record<string, unknown>[] }[] = [
    {
      file: "bitly.csv",
      format: "bitly",
      expected: [
        {
          code: "3xTrAil",
          url: "https://example.com/trail-shoes?ref=bitly",
          title: "Trail shoes",
          tags: ["shoes", "spring"],
          active: true,
          notes: "Created on Bitly: 2024-03-01T10:15:00+0000",
        },
        {
          code: "summer-sale",
          url: "https://example.com/sale",
          title: "Sale, 50% off",
          tags: ["sale"],
          active: false,
          notes: "Created on Bitly: 2024-04-12T08:00:00+0000",
        },
        {
          code: "2nOtAg",
          url: "https://example.org/docs#start",
          title: "",
          tags: [],
          active: true,
          notes: "Created on Bitly: 2023-11-30T23:59:59+0000",
        },
      ],
    },
    {
      file: "rebrandly.csv",
      format: "rebrandly",
      expected: [
        {
          code: "spring-launch",
          url: "https://example.com/launch",
          title: "Spring launch",
          tags: ["launch", "spring"],
          active: true,
          notes: "Created on Rebrandly: 2024-02-10T09:00:00.000Z",
        },
        {
          code: "pricing",
          url: "https://example.com/pricing?plan=pro",
          title: "",
          tags: [],
          active: true,
          notes: "Created on Rebrandly: 2024-05-01T12:30:00.000Z",
        },
      ],
    },
    {
      file: "shortio.csv",
      format: "shortio",
      expected: [
        {
          code: "webinar",
          url: "https://example.com/webinar",
          title: "Webinar sign-up",
          tags: ["events", "webinar"],
          active: true,
          notes: "Created on Short.io: 2024-06-03T14:00:00.000Z",
        },
        {
          code: "careers",
          url: "https://example.com/jobs",
          title: "Careers",
          tags: [],
          active: true,
          notes: "Created on Short.io: 2024-06-04T08:45:00.000Z",
        },
      ],
    },
    {
      file: "dub.csv",
      format: "dub",
      expected: [
        {
          code: "newsletter",
          url: "https://example.com/newsletter?utm_source=dub",
          title: "Newsletter",
          tags: ["email", "monthly"],
          active: true,
          notes: "Created on Dub: 2024-07-01T10:00:00.000Z",
        },
        {
          code: "old-offer",
          url: "https://example.com/offer",
          title: "Old offer",
          tags: [],
          active: false,
          notes: "Created on Dub: 2024-01-15T16:20:00.000Z",
        },
      ],
    },
  ];
  for (const c of cases) {
    it(`imports ${c.file} with its columns mapped (destination, back-half, title, tags, archived, created date in notes)`, async () => {
      const { api } = await workspace();
      const { detection, results } = await importCsv(api, fixture(c.file));
      expect(detection?.format).toBe(c.format);
      expect(results.map((r: { status: number }) => r.status)).toEqual(c.expected.map(() => 201));
      const links = results.map((r: { link: Record<string, unknown> }) => r.link);
      expect(links).toEqual(c.expected.map((e) => expect.objectContaining({ ...e, domain: "localhost:3000", folder: "" })));
    });
  }

  it("reports a bad row of a foreign file per row and creates the others", async () => {
    const { api } = await workspace();
    const text =
      "id,link,long_url,title\r\nx,https://bit.ly/ok1,https://example.com/ok,Ok\r\ny,https://bit.ly/bad1,https://blocked.example/x,Bad\r\n";
    const { results } = await importCsv(api, text);
    expect(results.map((r: { status: number }) => r.status)).toEqual([201, 400]);
    expect(results[1].error.messages[0]).toMatch(/blocked\.example is not allowed/);
    expect((await api.get("/api/v1/links/bad1")).status).toBe(404);
  });
});

describe("reference", () => {
  it("the OpenAPI document and /docs/api cover tags, utm, the tag filter and the export", async () => {
    const doc = (await client(env.app, null).get("/api/v1/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/links/export", "/tags", "/tags/{id}"]));
    expect(Object.keys(doc.components.schemas.CreateLink.properties)).toEqual(expect.arrayContaining(["tags", "utm"]));
    expect(Object.keys(doc.components.schemas.UpdateLink.properties)).toEqual(expect.arrayContaining(["tags", "utm"]));
    expect(Object.keys(doc.components.schemas.Link.properties)).toContain("tags");
    expect(Object.keys(doc.components.schemas.WebhookLink.properties)).not.toContain("tags");
    expect(doc.paths["/links"].get.parameters.find((p: { name: string }) => p.name === "tag")).toMatchObject({
      style: "form",
      explode: true,
      schema: { type: "array" },
    });
    expect(doc.paths["/links/export"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["domain", "folder", "q", "tag"]);
    const page = (await client(env.app, null).get("/docs/api")).text;
    for (const text of ["/api/v1/links/export", "/api/v1/tags", "exportLinks", "utm_source", "text/csv"])
      expect(page, text).toContain(text);
  });
});
