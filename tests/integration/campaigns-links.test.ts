import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { apiLinkSchema, webhookLinkSchema } from "../../lib/links/schemas.ts";
import { client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// Tags and UTM values on links through /api/v1/links: create, bulk, PATCH, the list's tag filter,
// the webhook events (the webhook link object never carries tags), and the refusals.

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

async function workspace(plan = "team") {
  const w = await makeWorkspace(plan);
  await db().webhookEndpoint.create({
    data: { workspaceId: w.workspace.id, url: "https://hooks.invalid/linkhop", secret: "whsec_" + "x".repeat(48), allEvents: true },
  });
  const events = async () =>
    (await db().webhookEvent.findMany({ where: { workspaceId: w.workspace.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map(
      (e) => ({ type: e.type, ...JSON.parse(e.body) }),
    );
  return { ...w, api: client(env.app, w.key), events };
}

const WEBHOOK_FIELDS = [
  "id",
  "short",
  "code",
  "domain",
  "url",
  "active",
  "expiresOn",
  "maxClicks",
  "startsOn",
  "fallbackUrl",
  "createdOn",
  "folder",
  "title",
  "notes",
];

describe("tags on links", () => {
  it("creates a link with tags (new tags created, existing ones reused ignoring case, duplicates once), sorted in the link object", async () => {
    const { api, events, workspace: w } = await workspace();
    const existing = await api.post("/api/v1/tags", { name: "Spring", color: "green" });
    const r = await api.post("/api/v1/links", { url: "https://example.com/a", tags: ["spring", "sale", "SALE", " email "] });
    expect(r.status).toBe(201);
    apiLinkSchema.parse(r.body);
    expect(r.body.tags).toEqual(["email", "sale", "Spring"]);
    const tags = (await api.get("/api/v1/tags")).body.tags;
    expect(tags.map((t: { name: string }) => t.name)).toEqual(["email", "sale", "Spring"]);
    expect(tags.find((t: { name: string }) => t.name === "Spring").id).toBe(existing.body.id);
    expect(await db().tag.count({ where: { workspaceId: w.id } })).toBe(3);

    expect((await api.get(`/api/v1/links/${r.body.code}`)).body.tags).toEqual(["email", "sale", "Spring"]);
    const [created] = await events();
    expect(created.type).toBe("link.created");
    expect(Object.keys(created.data.link)).toEqual(WEBHOOK_FIELDS);
    webhookLinkSchema.parse(created.data.link);
  });

  it("a link without tags has tags: []", async () => {
    const { api } = await workspace();
    const r = await api.post("/api/v1/links", { url: "https://example.com/none" });
    expect(r.body.tags).toEqual([]);
  });

  it("PATCH replaces the set, [] clears it; a tags-only change sends link.updated with changed: [] and no tags; the same set writes nothing", async () => {
    const { api, events } = await workspace();
    const link = (await api.post("/api/v1/links", { url: "https://example.com/p", tags: ["a", "b"] })).body;
    const replaced = await api.patch(`/api/v1/links/${link.code}`, { tags: ["b", "c"] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ ...link, tags: ["b", "c"] });
    const same = await api.patch(`/api/v1/links/${link.code}`, { tags: ["C", "b"] });
    expect(same.body.tags).toEqual(["b", "c"]);
    const cleared = await api.patch(`/api/v1/links/${link.code}`, { tags: [] });
    expect(cleared.body.tags).toEqual([]);
    const both = await api.patch(`/api/v1/links/${link.code}`, { tags: ["d"], title: "T" });
    expect(both.body).toMatchObject({ tags: ["d"], title: "T" });

    const ev = await events();
    expect(ev.map((e) => e.type)).toEqual(["link.created", "link.updated", "link.updated", "link.updated"]);
    expect(ev[1].data.changed).toEqual([]);
    expect(Object.keys(ev[1].data.link)).toEqual(WEBHOOK_FIELDS);
    expect(ev[2].data.changed).toEqual([]);
    expect(ev[3].data.changed).toEqual(["title"]);
    // the tags themselves stay in the workspace
    expect((await api.get("/api/v1/tags")).body.tags.map((t: { name: string }) => t.name)).toEqual(["a", "b", "c", "d"]);
  });

  it("bulk rows take tags; a refused row creates neither its link nor its tags", async () => {
    const { api, events, workspace: w } = await workspace();
    const r = await api.post("/api/v1/links/bulk", {
      links: [
        { url: "https://example.com/1", tags: ["one", "shared"] },
        { url: "https://blocked.example/x", tags: ["never"] },
        { url: "https://example.com/2", tags: ["SHARED"] },
        { url: "https://example.com/3", tags: ["x,y"] },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: number }) => x.status)).toEqual([201, 400, 201, 400]);
    expect(r.body.results[0].link.tags).toEqual(["one", "shared"]);
    expect(r.body.results[2].link.tags).toEqual(["shared"]);
    expect(r.body.results[3].error.messages[0]).toMatch(/^tags\.0: must not contain a comma/);
    expect((await db().tag.findMany({ where: { workspaceId: w.id }, orderBy: { nameKey: "asc" } })).map((t) => t.name)).toEqual([
      "one",
      "shared",
    ]);
    const ev = await events();
    expect(ev.map((e) => e.type)).toEqual(["link.bulk_created"]);
    for (const l of ev[0].data.links) expect(Object.keys(l)).toEqual(WEBHOOK_FIELDS);
  });

  it("a create refused for the allowance leaves no tags behind", async () => {
    const { api, workspace: w } = await workspace("quota3");
    for (let i = 0; i < 3; i++) expect((await api.post("/api/v1/links", { url: `https://example.com/q${i}` })).status).toBe(201);
    const refused = await api.post("/api/v1/links", { url: "https://example.com/q4", tags: ["late"] });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("quota");
    expect(await db().tag.count({ where: { workspaceId: w.id } })).toBe(0);
  });

  it("GET /links?tag= filters by any of the tags (repeatable, any case); an unknown tag matches nothing", async () => {
    const { api } = await workspace();
    const a = (await api.post("/api/v1/links", { url: "https://example.com/a", tags: ["red"] })).body;
    const b = (await api.post("/api/v1/links", { url: "https://example.com/b", tags: ["blue", "red"] })).body;
    const c = (await api.post("/api/v1/links", { url: "https://example.com/c", tags: ["green"] })).body;
    await api.post("/api/v1/links", { url: "https://example.com/d" });
    const codes = async (q: string) => (await api.get(`/api/v1/links${q}`)).body.links.map((l: { code: string }) => l.code);
    expect(await codes("?tag=red")).toEqual([b.code, a.code]);
    expect(await codes("?tag=RED&tag=green")).toEqual([c.code, b.code, a.code]);
    expect(await codes("?tag=nope")).toEqual([]);
    expect(await codes("?tag=red&q=example.com/b")).toEqual([b.code]);
    const paged = await api.get("/api/v1/links?tag=red&size=1");
    expect(paged.body.links.map((l: { code: string }) => l.code)).toEqual([b.code]);
    expect(
      (await api.get(`/api/v1/links?tag=red&size=1&cursor=${paged.body.nextCursor}`)).body.links.map((l: { code: string }) => l.code),
    ).toEqual([a.code]);
    // another workspace's tag of the same name does not match
    const other = await workspace();
    await other.api.post("/api/v1/links", { url: "https://example.com/o", tags: ["red"] });
    expect(await codes("?tag=red")).toEqual([b.code, a.code]);
  });

  it("refuses bad tags with 400 validation and changes nothing", async () => {
    const { api } = await workspace();
    const link = (await api.post("/api/v1/links", { url: "https://example.com/v", tags: ["keep"] })).body;
    const cases: [unknown, RegExp][] = [
      [{ tags: "a" }, /^tags: /],
      [{ tags: [""] }, /^tags\.0: must not be empty/],
      [{ tags: ["x".repeat(51)] }, /^tags\.0: must be at most 50/],
      [{ tags: Array.from({ length: 26 }, (_, i) => `t${i}`) }, /^tags: at most 25 tags per link/],
      [{ tags: [1] }, /^tags\.0: /],
    ];
    for (const [body, message] of cases) {
      const create = await api.post("/api/v1/links", { url: "https://example.com/x", ...(body as object) });
      expect(create.status, JSON.stringify(body)).toBe(400);
      expect(create.body.messages.join(" ")).toMatch(message);
      const patch = await api.patch(`/api/v1/links/${link.code}`, body);
      expect(patch.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api.get("/api/v1/links?tag=x&tag=")).status).toBe(400);
    expect((await api.get(`/api/v1/links/${link.code}`)).body.tags).toEqual(["keep"]);
  });
});

describe("UTM values", () => {
  it("merges utm into the destination on create: existing query kept, same-name parameter replaced, fragment last, values encoded", async () => {
    const { api, events } = await workspace();
    const r = await api.post("/api/v1/links", {
      url: "https://example.com/p?ref=x&utm_source=old#pricing",
      utm: { source: "news letter", medium: "email", campaign: "spring&sale" },
    });
    expect(r.status).toBe(201);
    expect(r.body.url).toBe("https://example.com/p?ref=x&utm_source=news%20letter&utm_medium=email&utm_campaign=spring%26sale#pricing");
    const [created] = await events();
    expect(created.data.link.url).toBe(r.body.url);
    // the redirect sends visitors to the merged URL
    const hop = await client(env.app, null).call("GET", `/${r.body.code}`, { headers: { host: "localhost:3000" } });
    expect(hop.status).toBe(302);
    expect(hop.headers.location).toBe(r.body.url);
  });

  it("PATCH utm merges into the current url, or into a new url given in the same body; url shows in changed", async () => {
    const { api, events } = await workspace();
    const link = (await api.post("/api/v1/links", { url: "https://example.com/a?x=1" })).body;
    const one = await api.patch(`/api/v1/links/${link.code}`, { utm: { campaign: "c1" } });
    expect(one.body.url).toBe("https://example.com/a?x=1&utm_campaign=c1");
    const two = await api.patch(`/api/v1/links/${link.code}`, { url: "https://example.com/b", utm: { campaign: "c2", term: "t" } });
    expect(two.body.url).toBe("https://example.com/b?utm_campaign=c2&utm_term=t");
    const removed = await api.patch(`/api/v1/links/${link.code}`, { utm: { term: "" } });
    expect(removed.body.url).toBe("https://example.com/b?utm_campaign=c2");
    const same = await api.patch(`/api/v1/links/${link.code}`, { utm: { campaign: "c2" } });
    expect(same.body.url).toBe("https://example.com/b?utm_campaign=c2");
    const ev = await events();
    expect(ev.map((e) => [e.type, e.data.changed])).toEqual([
      ["link.created", undefined],
      ["link.updated", ["url"]],
      ["link.updated", ["url"]],
      ["link.updated", ["url"]],
    ]);
  });

  it("bulk rows take utm", async () => {
    const { api } = await workspace();
    const r = await api.post("/api/v1/links/bulk", {
      links: [{ url: "https://example.com/1", utm: { source: "s" } }, { url: "https://example.com/2" }],
    });
    expect(r.body.results.map((x: { link: { url: string } }) => x.link.url)).toEqual([
      "https://example.com/1?utm_source=s",
      "https://example.com/2",
    ]);
  });

  it("refuses unknown utm names, long values and a merged url over 2048 characters with 400", async () => {
    const { api } = await workspace();
    const cases: [unknown, RegExp][] = [
      [{ utm: { id: "x" } }, /utm: /],
      [{ utm: { source: "x".repeat(201) } }, /^utm\.source: must be at most 200/],
      [{ utm: "source=x" }, /^utm: /],
    ];
    for (const [body, message] of cases) {
      const r = await api.post("/api/v1/links", { url: "https://example.com/x", ...(body as object) });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.messages.join(" ")).toMatch(message);
    }
    const long = await api.post("/api/v1/links", { url: `https://example.com/${"p".repeat(1900)}`, utm: { source: "s".repeat(200) } });
    expect(long.status).toBe(400);
    expect(long.body.messages).toEqual(["utm: with the UTM parameters, url is longer than 2048 characters"]);
    const link = (await api.post("/api/v1/links", { url: `https://example.com/${"p".repeat(1900)}` })).body;
    const longPatch = await api.patch(`/api/v1/links/${link.code}`, { utm: { source: "s".repeat(200) } });
    expect(longPatch.status).toBe(400);
    expect((await api.get(`/api/v1/links/${link.code}`)).body.url).toBe(link.url);
  });
});

describe("bulk tag edits (the Links page's selection bar)", () => {
  it("adds and removes a tag on many links in one transaction; only links whose set changed get link.updated with changed: []", async () => {
    const { retagLinks } = await import("../../lib/links/retag.ts");
    const { api, events, workspace: w } = await workspace();
    const a = (await api.post("/api/v1/links", { url: "https://example.com/ra", tags: ["launch"] })).body;
    const b = (await api.post("/api/v1/links", { url: "https://example.com/rb" })).body;
    const c = (await api.post("/api/v1/links", { url: "https://example.com/rc", tags: ["old"] })).body;
    expect(await retagLinks(w, { ids: [a.id, b.id, c.id], add: ["Launch"], remove: ["old"] })).toEqual({ changed: 2 });
    for (const [code, tags] of [
      [a.code, ["launch"]],
      [b.code, ["launch"]],
      [c.code, ["launch"]],
    ] as const) {
      expect((await api.get(`/api/v1/links/${code}`)).body.tags).toEqual(tags);
    }
    const updated = (await events()).filter((e) => e.type === "link.updated");
    expect(updated.map((e) => [e.data.link.code, e.data.changed])).toEqual([
      [b.code, []],
      [c.code, []],
    ]);
    for (const e of updated) expect(Object.keys(e.data.link)).toEqual(WEBHOOK_FIELDS);
    // nothing to change: no write, no event
    expect(await retagLinks(w, { ids: [a.id], add: ["launch"], remove: [] })).toEqual({ changed: 0 });
    expect((await events()).filter((e) => e.type === "link.updated")).toHaveLength(2);
  });

  it("refuses another workspace's link with 404 and changes nothing; an empty edit is a validation error", async () => {
    const { retagLinks } = await import("../../lib/links/retag.ts");
    const mine = await workspace();
    const theirs = await workspace();
    const own = (await mine.api.post("/api/v1/links", { url: "https://example.com/own" })).body;
    const other = (await theirs.api.post("/api/v1/links", { url: "https://example.com/other" })).body;
    await expect(retagLinks(mine.workspace, { ids: [own.id, other.id], add: ["x"], remove: [] })).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await mine.api.get(`/api/v1/links/${own.code}`)).body.tags).toEqual([]);
    expect(await db().tag.count({ where: { workspaceId: mine.workspace.id } })).toBe(0);
    await expect(retagLinks(mine.workspace, { ids: [own.id], add: [], remove: [] })).rejects.toMatchObject({ code: "validation" });
  });
});

describe("UTM templates", () => {
  it("creates, lists by name and deletes templates; duplicate names (any case) and empty sets are refused", async () => {
    const { createUtmTemplate, deleteUtmTemplate, listUtmTemplates, utmTemplateSchema } = await import("../../lib/links/utm-templates.ts");
    const { workspace: w } = await workspace();
    const other = await workspace();
    const news = await createUtmTemplate(
      w,
      utmTemplateSchema.parse({ name: "Newsletter", utm: { source: "newsletter", medium: "email" } }),
    );
    await createUtmTemplate(w, utmTemplateSchema.parse({ name: "ads", utm: { source: "google", campaign: "spring" } }));
    expect(await listUtmTemplates(w)).toEqual([
      { id: expect.any(Number), name: "ads", utm: { source: "google", campaign: "spring" } },
      { id: news.id, name: "Newsletter", utm: { source: "newsletter", medium: "email" } },
    ]);
    await expect(createUtmTemplate(w, utmTemplateSchema.parse({ name: "NEWSLETTER", utm: { source: "x" } }))).rejects.toMatchObject({
      code: "validation",
      message: 'name: a template named "NEWSLETTER" already exists in this workspace',
    });
    expect(utmTemplateSchema.safeParse({ name: "empty", utm: { source: "" } }).success).toBe(false);
    await expect(deleteUtmTemplate(other.workspace, news.id)).rejects.toMatchObject({ code: "not_found" });
    await deleteUtmTemplate(w, news.id);
    expect((await listUtmTemplates(w)).map((t) => t.name)).toEqual(["ads"]);
  });
});
