import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkResponseSchema } from "../../lib/api/schemas.ts";
import { parseCsvRecords } from "../../lib/csv/index.ts";
import { db } from "../../lib/db/client.ts";
import { toLinkBody } from "../../lib/links/csv-rows.ts";
import { apiLinkSchema } from "../../lib/links/schemas.ts";
import { createEndpoint } from "../../lib/webhooks/index.ts";
import { client, makeDomain, makeWorkspace, startApiTest, TEST_PLANS, type ApiTestEnv } from "../support/api.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { startHttpsReceiver } from "./webhooks-helpers.ts";

// The link routing fields (forwardQuery, forwardPath, variants, rules, preview) through the API:
// create, bulk rows, PATCH, GET and list; validation, destination checks and plan features;
// webhooks (never in the webhook link object; a routing-only edit is changed: []); the CSV export
// imported again. One app process for the file.

const ROUTING = ["RedirectRules", "LinkPreviews", "ABTesting"];
let env: ApiTestEnv;
let receiver: Receiver;

beforeAll(async () => {
  env = await startApiTest({
    plans: {
      ...TEST_PLANS,
      // every routing feature, webhooks and bulk, no rate limit
      routing: { ...TEST_PLANS.open, name: "Routing", features: [...TEST_PLANS.open.features, ...ROUTING] },
      // bulk and webhooks but none of the routing features
      plain: { ...TEST_PLANS.open, name: "Plain" },
    },
    env: { WEBHOOK_ALLOW_PRIVATE: "1" },
  });
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await env?.stop();
  await receiver?.stop();
});

async function workspace(plan = "routing") {
  const w = await makeWorkspace(plan);
  return { ...w, api: client(env.app, w.key) };
}

const linkCount = (workspaceId: number) => db().link.count({ where: { workspaceId } });
const usage = async (workspaceId: number) =>
  (await db().monthlyUsage.findMany({ where: { workspaceId } })).reduce((s, u) => s + u.created, 0);
const storedRouting = async (id: number) => (await db().link.findUniqueOrThrow({ where: { id } })).routing;

const variants = [
  { url: "https://example.com/a", weight: 25 },
  { url: "https://example.com/b", weight: 75 },
];
const rules = [
  { url: "https://example.de/", countries: ["DE", "AT"], languages: ["de"] },
  { url: "https://example.com/night", hours: [22, 24], days: [6, 0], timeZone: "Europe/Berlin" },
  { url: "https://example.com/promo", query: { ref: "*" }, devices: ["mobile"], os: ["ios", "android"] },
];
const preview = { title: "Spring sale", description: "Half off <today>", image: "https://img.example.com/card.png" };
const all = { forwardQuery: true, forwardPath: true, variants, rules, preview };
/** The rules as stored and shown: condition lists sorted. */
const canonicalRules = [
  { url: "https://example.de/", countries: ["AT", "DE"], languages: ["de"] },
  { url: "https://example.com/night", days: [0, 6], hours: [22, 24], timeZone: "Europe/Berlin" },
  { url: "https://example.com/promo", devices: ["mobile"], os: ["android", "ios"], query: { ref: "*" } },
];
const unset = { forwardQuery: false, forwardPath: false, variants: null, rules: null, preview: null };

describe("the routing fields through the API", () => {
  it("create, GET and list show every field; the row stores only what is set", async () => {
    const { api } = await workspace();
    const created = await api.post("/api/v1/links", { url: "https://example.com/", alias: "routed", ...all });
    expect(created.status).toBe(201);
    apiLinkSchema.parse(created.body);
    expect(created.body).toMatchObject({ ...all, rules: canonicalRules });
    expect((await api.get("/api/v1/links/routed")).body).toEqual(created.body);
    const list = await api.get("/api/v1/links");
    expect(list.body.links).toEqual([created.body]);
    expect(await storedRouting(created.body.id)).toEqual({
      forwardQuery: true,
      forwardPath: true,
      variants,
      rules: canonicalRules,
      preview,
    });

    const plain = await api.post("/api/v1/links", { url: "https://example.com/plain", forwardQuery: false, rules: [] });
    expect(plain.body).toMatchObject(unset);
    expect(await storedRouting(plain.body.id)).toBeNull();
  });

  it("PATCH sets, replaces and clears (null, or false for the flags); nothing left stores null", async () => {
    const { api } = await workspace();
    const { body: link } = await api.post("/api/v1/links", { url: "https://example.com/", alias: "p1" });
    expect(link).toMatchObject(unset);
    const set = await api.patch("/api/v1/links/p1", all);
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ ...link, ...all, rules: canonicalRules });
    const some = await api.patch("/api/v1/links/p1", { forwardQuery: false, preview: null, variants: [...variants].reverse() });
    expect(some.body).toMatchObject({ forwardQuery: false, forwardPath: true, preview: null, variants: [...variants].reverse() });
    const cleared = await api.patch("/api/v1/links/p1", { forwardPath: false, variants: null, rules: null });
    expect(cleared.body).toEqual(link);
    expect(await storedRouting(link.id)).toBeNull();
  });

  it("bulk rows take the fields and answer per row as a single create would", async () => {
    const { api, workspace: w } = await workspace();
    const a = await api.post("/api/v1/links/bulk", {
      links: [
        { url: "https://example.com/1", variants },
        { url: "https://example.com/2", variants: [{ url: "https://example.com/a", weight: 100 }] },
        { url: "https://example.com/3", preview: { image: "https://img.example.com/x.png" }, forwardQuery: true },
      ],
    });
    expect(a.status).toBe(200);
    const { results } = bulkResponseSchema.parse(a.body);
    expect(results.map((r) => r.status)).toEqual([201, 400, 201]);
    expect(a.body.results[0].link).toMatchObject({ ...unset, variants });
    expect(a.body.results[1].error).toEqual({ error: "validation", messages: expect.arrayContaining(["variants: at least 2 variants"]) });
    expect(a.body.results[2].link).toMatchObject({ ...unset, forwardQuery: true, preview: { image: "https://img.example.com/x.png" } });
    expect(await linkCount(w.id)).toBe(2);
  });
});

describe("validation", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "weights not summing to 100",
      {
        variants: [
          { url: "https://a.test/", weight: 50 },
          { url: "https://b.test/", weight: 40 },
        ],
      },
      /^variants: weights must sum to 100/,
    ],
    ["one variant", { variants: [{ url: "https://a.test/", weight: 99 }] }, /^variants: at least 2 variants/],
    ["21 rules", { rules: Array.from({ length: 21 }, () => ({ url: "https://a.test/", countries: ["DE"] })) }, /^rules: at most 20 rules/],
    [
      "a rule without a condition",
      { rules: [{ url: "https://a.test/", timeZone: "UTC" }] },
      /^rules\.0: a rule needs at least one condition/,
    ],
    ["an unknown condition", { rules: [{ url: "https://a.test/", planet: "mars" }] }, /^rules\.0: Unrecognized key.*planet/],
    [
      "a bad time zone",
      { rules: [{ url: "https://a.test/", days: [1], timeZone: "Mars/Olympus" }] },
      /^rules\.0\.timeZone: must be an IANA time zone/,
    ],
    ["hours from >= to", { rules: [{ url: "https://a.test/", hours: [10, 10] }] }, /^rules\.0\.hours: hours are \[from, to\)/],
    ["an http preview image", { preview: { image: "http://img.example.com/x.png" } }, /^preview\.image: must be an https URL/],
    ["an empty preview", { preview: {} }, /^preview: needs a title, description or image/],
    [
      "a javascript: variant",
      {
        variants: [
          { url: "javascript:alert(1)", weight: 50 },
          { url: "https://b.test/", weight: 50 },
        ],
      },
      /^variants\.0\.url:/,
    ],
  ];

  it.each(cases)("%s: 400 with the spec's body, nothing created", async (_name, fields, message) => {
    const { api, workspace: w } = await workspace();
    const a = await api.post("/api/v1/links", { url: "https://example.com/", ...fields });
    expect(a.status).toBe(400);
    expect(Object.keys(a.body)).toEqual(["error", "messages"]);
    expect(a.body.error).toBe("validation");
    expect(
      a.body.messages.some((m: string) => message.test(m)),
      a.body.messages.join("; "),
    ).toBe(true);
    expect(await linkCount(w.id)).toBe(0);
    expect(await usage(w.id)).toBe(0);
  });

  it("refuses routing URLs as it refuses url: denylisted hosts, short links, verified custom domains (also on PATCH)", async () => {
    const { api, workspace: w } = await workspace();
    const other = await makeWorkspace("routing", { keys: 0 });
    await makeDomain(other.workspace.id, `go-${other.workspace.id}.example.net`);
    const pair = (bad: string) => [
      { url: bad, weight: 50 },
      { url: "https://example.com/ok", weight: 50 },
    ];
    const refused: [Record<string, unknown>, string][] = [
      [{ variants: pair("https://blocked.example/x") }, "variants.0.url"],
      [{ rules: [{ url: "http://localhost:3000/abc", countries: ["DE"] }] }, "rules.0.url"],
      [{ variants: pair(`https://go-${other.workspace.id}.example.net/x`) }, "variants.0.url"],
      [{ preview: { image: "https://sub.evil.test/x.png" } }, "preview.image"],
    ];
    for (const [fields, field] of refused) {
      const a = await api.post("/api/v1/links", { url: "https://example.com/", ...fields });
      expect(a.status, JSON.stringify(fields)).toBe(400);
      expect(a.body).toEqual({ error: "validation", messages: [expect.stringMatching(new RegExp(`^${field.replace(/\./g, "\\.")}: `))] });
    }
    expect(await linkCount(w.id)).toBe(0);
    expect(await usage(w.id)).toBe(0);
    await api.post("/api/v1/links", { url: "https://example.com/", alias: "keep" });
    for (const [fields] of refused) expect((await api.patch("/api/v1/links/keep", fields)).status).toBe(400);
    expect(await storedRouting((await db().link.findFirstOrThrow({ where: { workspaceId: w.id } })).id)).toBeNull();
  });
});

describe("plan features", () => {
  const refusals: [Record<string, unknown>, string][] = [
    [{ forwardPath: true }, "RedirectRules"],
    [{ rules: [{ url: "https://example.de/", countries: ["DE"] }] }, "RedirectRules"],
    [{ variants }, "ABTesting"],
    [{ preview: { title: "x" } }, "LinkPreviews"],
  ];

  it("403 feature with the key, nothing created; forwardQuery and clearing need no feature", async () => {
    const { api, workspace: w } = await workspace("plain");
    for (const [fields, key] of refusals) {
      const a = await api.post("/api/v1/links", { url: "https://example.com/", ...fields });
      expect(a.status).toBe(403);
      expect(a.body).toEqual({ error: "feature", key, upgrade: true });
    }
    expect(await linkCount(w.id)).toBe(0);
    expect(await usage(w.id)).toBe(0);
    const ok = await api.post("/api/v1/links", {
      url: "https://example.com/",
      alias: "fq",
      forwardQuery: true,
      forwardPath: false,
      variants: null,
    });
    expect(ok.status).toBe(201);
    for (const [fields, key] of refusals)
      expect((await api.patch("/api/v1/links/fq", fields)).body).toEqual({ error: "feature", key, upgrade: true });
    expect((await api.patch("/api/v1/links/fq", { forwardPath: null, rules: null, variants: null, preview: null })).status).toBe(200);
  });

  it("validation comes before features; bulk refuses per row as a single create would", async () => {
    const { api, workspace: w } = await workspace("plain");
    const invalid = await api.post("/api/v1/links", { url: "https://example.com/", variants: [{ url: "https://a.test/", weight: 99 }] });
    expect(invalid.status).toBe(400);
    const a = await api.post("/api/v1/links/bulk", {
      links: [{ url: "https://example.com/0" }, ...refusals.map(([fields]) => ({ url: "https://example.com/", ...fields }))],
    });
    expect(a.body.results.map((r: { status: number }) => r.status)).toEqual([201, 403, 403, 403, 403]);
    expect(a.body.results.slice(1).map((r: { error: { key: string } }) => r.error)).toEqual(
      refusals.map(([, key]) => ({ error: "feature", key, upgrade: true })),
    );
    expect(await linkCount(w.id)).toBe(1);
  });
});

describe("webhooks", () => {
  it("the webhook link object has no routing fields; a routing-only edit sends changed: []; a no-op edit sends nothing", async () => {
    const { api, workspace: w } = await workspace();
    await createEndpoint(w.id, { url: receiver.url("127.0.0.1", `/hook-${w.id}`) });
    const mine = () => receiver.requests.filter((r) => r.path === `/hook-${w.id}`).map((r) => JSON.parse(r.raw.toString("utf8")));
    await api.post("/api/v1/links", { url: "https://example.com/", alias: "hooked", ...all });
    const edited = await api.patch("/api/v1/links/hooked", { variants: [...variants].reverse(), forwardQuery: false });
    expect(edited.status).toBe(200);
    const same = await api.patch("/api/v1/links/hooked", { variants: [...variants].reverse(), forwardQuery: null, rules, preview });
    expect(same.status).toBe(200);
    await api.patch("/api/v1/links/hooked", { title: "Now titled" });

    const until = Date.now() + 20_000;
    while (mine().length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    // deliveries may arrive in any order: compare them sorted by what they say
    const received = mine();
    const said = received.map((e) => `${e.type} ${JSON.stringify(e.data.changed ?? null)}`).sort();
    expect(said).toEqual(["link.created null", "link.updated []", 'link.updated ["title"]'].sort());
    for (const e of received)
      for (const field of ["forwardQuery", "forwardPath", "variants", "rules", "preview", "targeting"])
        expect(e.data.link).not.toHaveProperty(field);
    expect(await db().webhookEvent.count({ where: { workspaceId: w.id } })).toBe(3);
  });
});

describe("export and import", () => {
  it("the CSV export imports into another workspace with the same routing", async () => {
    const a = await workspace();
    const b = await workspace();
    await a.api.post("/api/v1/links", { url: "https://example.com/1", alias: "r1", ...all });
    await a.api.post("/api/v1/links", {
      url: "https://example.com/2",
      alias: "r2",
      forwardQuery: true,
      preview: { title: 'Say "hi", then go' },
    });
    await a.api.post("/api/v1/links", { url: "https://example.com/3", alias: "r3" });
    const exported = await a.api.get("/api/v1/links/export");
    expect(exported.status).toBe(200);
    const { records, error } = parseCsvRecords(exported.text);
    expect(error).toBeNull();
    const bodies = records.map((r, i) => {
      const c = toLinkBody(r, i + 1);
      if (!("body" in c)) throw new Error(c.errors.join("; "));
      // the codes are taken on the shared default domain: b's links get codes of their own
      const { alias: _alias, ...body } = c.body;
      return body;
    });
    const imported = await b.api.post("/api/v1/links/bulk", { links: bodies });
    expect(imported.body.results.map((r: { status: number }) => r.status)).toEqual([201, 201, 201]);
    const routingOf = async (workspaceId: number) =>
      (await db().link.findMany({ where: { workspaceId }, select: { url: true, routing: true }, orderBy: { url: "asc" } })).map((l) => [
        l.url,
        l.routing,
      ]);
    expect(await routingOf(b.workspace.id)).toEqual(await routingOf(a.workspace.id));
    expect((await routingOf(b.workspace.id))[2][1]).toBeNull();
  });
});

describe("OpenAPI", () => {
  it("documents the fields on CreateLink, UpdateLink and Link", async () => {
    const doc = await client(env.app, null).get("/api/v1/openapi.json");
    const schemas = doc.body.components.schemas;
    for (const name of ["CreateLink", "UpdateLink", "Link"])
      expect(Object.keys(schemas[name].properties)).toEqual(
        expect.arrayContaining(["forwardQuery", "forwardPath", "variants", "rules", "preview"]),
      );
    expect(Object.keys(schemas.WebhookLink.properties)).not.toContain("variants");
  });
});
