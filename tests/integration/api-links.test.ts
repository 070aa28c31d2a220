import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bulkResponseSchema, errorSchemas } from "../../lib/api/schemas.ts";
import { db } from "../../lib/db/client.ts";
import { createApiKey, hashApiKey } from "../../lib/keys/index.ts";
import { apiLinkSchema, listLinksResponseSchema, webhookLinkSchema } from "../../lib/links/schemas.ts";
import { revokeApiKey } from "../../lib/keys/index.ts";
import { createUser } from "../../lib/auth/users.ts";
import { client, makeDomain, makeWorkspace, rateHeaders, startApiTest, TEST_PLANS, type ApiTestEnv } from "../support/api.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { signInCookie } from "../support/session.ts";

// The links endpoints end to end: bodies as docs/api.md documents them, the events each write records, bulk per-row
// results, keyset pagination and filters, keys from the service and the admin CLI, the OpenAPI
// document and the reference page.

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest({ plans: { ...TEST_PLANS, quota5: { ...TEST_PLANS.team, name: "Quota 5", rateLimit: null, maxLinks: 5 } } });
});
afterAll(async () => {
  await env?.stop();
});

/** A workspace on team (webhooks included) with an enabled endpoint, so its events are recorded. */
async function workspaceWithEvents(plan = "team") {
  const w = await makeWorkspace(plan);
  await db().webhookEndpoint.create({
    data: { workspaceId: w.workspace.id, url: "https://hooks.invalid/linkhop", secret: "whsec_" + "x".repeat(48), allEvents: true },
  });
  const events = async () =>
    (await db().webhookEvent.findMany({ where: { workspaceId: w.workspace.id }, orderBy: [{ createdAt: "asc" }] })).map((e) => ({
      type: e.type,
      ...JSON.parse(e.body),
    }));
  return { ...w, api: client(env.app, w.key), events };
}

const now = () => Math.floor(Date.now() / 1000);

describe("single links", () => {
  it("creates, reads, edits and deletes a link with exactly the contract's bodies and events", async () => {
    const { api, events, workspace } = await workspaceWithEvents();
    const created = await api.post("/api/v1/links", { url: "https://example.com/landing" });
    expect(created.status).toBe(201);
    const link = apiLinkSchema.parse(created.body);
    expect(Object.keys(created.body)).toEqual([
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
      "clicks",
      "hasPassword",
      "tags",
      "targeting",
      "forwardQuery",
      "forwardPath",
      "variants",
      "rules",
      "preview",
    ]);
    expect(link.code).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(link).toMatchObject({
      short: `http://localhost:3000/${link.code}`,
      domain: "localhost:3000",
      url: "https://example.com/landing",
      active: true,
      expiresOn: null,
      maxClicks: null,
      startsOn: null,
      fallbackUrl: null,
      folder: "",
      title: "",
      notes: null,
      clicks: 0,
      hasPassword: false,
    });
    expect(Math.abs(link.createdOn - now())).toBeLessThan(60);
    expect(rateHeaders(created)).toEqual({ limit: "600", remaining: "599" });

    const read = await api.get(`/api/v1/links/${link.code}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const edited = await api.patch(`/api/v1/links/${link.code}`, { url: "https://example.com/new", title: "New", notes: "n" });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ ...created.body, url: "https://example.com/new", title: "New", notes: "n" });

    const deleted = await api.delete(`/api/v1/links/${link.code}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe(`{"id":${link.id},"deleted":true}`);
    expect((await api.get(`/api/v1/links/${link.code}`)).status).toBe(404);

    const ev = await events();
    expect(ev.map((e) => e.type)).toEqual(["link.created", "link.updated", "link.deleted"]);
    const webhookLink = (({
      clicks: _c,
      hasPassword: _h,
      tags: _t,
      targeting: _g,
      forwardQuery: _q,
      forwardPath: _p,
      variants: _v,
      rules: _r,
      preview: _w,
      ...rest
    }) => rest)(created.body);
    expect(ev[0].data).toEqual({ link: webhookLink });
    webhookLinkSchema.parse(ev[0].data.link);
    expect(ev[1].data).toEqual({
      link: { ...webhookLink, url: "https://example.com/new", title: "New", notes: "n" },
      changed: ["url", "title", "notes"],
    });
    expect(ev[2].data).toEqual({ link: { ...webhookLink, url: "https://example.com/new", title: "New", notes: "n" } });
    expect(ev[0].workspace).toEqual({ id: workspace.slug, name: workspace.name });
  });

  it("takes every create field; the password is hashed and never returned; targeting is in the API link object, never in the webhook one", async () => {
    const { api } = await workspaceWithEvents();
    const body = {
      url: "https://example.com/all",
      alias: "All_fields-1",
      expiresOn: now() + 86_400,
      startsOn: now() - 60,
      maxClicks: 10,
      fallbackUrl: "https://example.com/fallback",
      password: "open sesame",
      title: "Everything",
      notes: "All the fields",
      folder: " /marketing/2026/ ",
      active: false,
      targeting: { ios: "https://apps.apple.com/x", geo: { DE: "https://example.de/", FR: "https://example.fr/" } },
    };
    const a = await api.post("/api/v1/links", body);
    expect(a.status, a.text).toBe(201);
    expect(a.body).toMatchObject({
      code: "All_fields-1",
      expiresOn: body.expiresOn,
      startsOn: body.startsOn,
      maxClicks: 10,
      fallbackUrl: body.fallbackUrl,
      title: "Everything",
      notes: "All the fields",
      folder: "marketing/2026",
      active: false,
      hasPassword: true,
    });
    expect(a.text).not.toContain("open sesame");
    expect(a.body.targeting).toEqual({ geo: { DE: "https://example.de/", FR: "https://example.fr/" }, ios: "https://apps.apple.com/x" });
    const row = await db().link.findUniqueOrThrow({ where: { id: a.body.id } });
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(row.targeting).toEqual({ geo: { DE: "https://example.de/", FR: "https://example.fr/" }, ios: "https://apps.apple.com/x" });
  });

  it("records link.updated with the changed webhook fields, changed [] for targeting or password only, and nothing for a no-op", async () => {
    const { api, events } = await workspaceWithEvents();
    const { body: link } = await api.post("/api/v1/links", { url: "https://example.com/u", alias: "upd", expiresOn: now() + 3600 });
    const before = await db().link.findUniqueOrThrow({ where: { id: link.id } });

    const same = await api.patch("/api/v1/links/upd", { url: "https://example.com/u", expiresOn: link.expiresOn, title: "" });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(link);
    expect((await db().link.findUniqueOrThrow({ where: { id: link.id } })).updatedAt).toEqual(before.updatedAt);

    await api.patch("/api/v1/links/upd", { targeting: { android: "https://play.example/x" } });
    await api.patch("/api/v1/links/upd", { targeting: { android: "https://play.example/x" } }); // no change
    const pw = await api.patch("/api/v1/links/upd", { password: "pw" });
    expect(pw.body.hasPassword).toBe(true);
    const renamed = await api.patch("/api/v1/links/upd", { alias: "upd2", expiresOn: null });
    expect(renamed.body).toMatchObject({ code: "upd2", short: "http://localhost:3000/upd2", expiresOn: null });
    expect((await api.patch("/api/v1/links/upd2", { password: null })).body.hasPassword).toBe(false);
    expect((await api.patch("/api/v1/links/upd2", { password: null })).status).toBe(200); // no change
    expect((await api.get("/api/v1/links/upd")).status).toBe(404);

    const ev = (await events()).filter((e) => e.type === "link.updated");
    expect(ev.map((e) => e.data.changed)).toEqual([[], [], ["short", "code", "expiresOn"], []]);
    expect(ev[2].data.link.code).toBe("upd2");
  });
});

describe("bulk", () => {
  it("gives per-row results in input order, counts as one request, and records link.bulk_created only", async () => {
    const { api, events } = await workspaceWithEvents();
    await api.post("/api/v1/links", { url: "https://example.com", alias: "existing" });
    const rows = [
      { url: "https://example.com/1" },
      { url: "not a url" },
      { url: "https://example.com/3", alias: "existing" },
      { url: "https://example.com/4", alias: "fresh" },
      { url: "https://example.com/5", domain: "unknown.test" },
      { url: "https://example.com/6", alias: "fresh" },
      "not an object",
      { url: "https://example.com/8", alias: "api" },
      { url: "https://blocked.example/9" },
      { url: "https://example.com/10", extra: true },
    ];
    const a = await api.post("/api/v1/links/bulk", { links: rows });
    expect(a.status).toBe(200);
    expect(rateHeaders(a)).toEqual({ limit: "600", remaining: "598" });
    const { results } = bulkResponseSchema.parse(a.body);
    expect(results.map((r) => [r.index, r.status])).toEqual([
      [0, 201],
      [1, 400],
      [2, 409],
      [3, 201],
      [4, 400],
      [5, 409],
      [6, 400],
      [7, 409],
      [8, 400],
      [9, 400],
    ]);
    expect(a.body.results[2].error).toEqual({ error: "alias_taken", alias: "existing" });
    expect(a.body.results[5].error).toEqual({ error: "alias_taken", alias: "fresh" });
    for (const i of [1, 4, 6, 8, 9]) errorSchemas.validation.parse(a.body.results[i].error);
    expect(a.body.results[3].link).toMatchObject({ code: "fresh", url: "https://example.com/4" });
    apiLinkSchema.parse(a.body.results[0].link);

    const ev = (await events()).filter((e) => e.type !== "link.created" || e.data.link.code !== "existing");
    expect(ev.map((e) => e.type)).toEqual(["link.bulk_created"]);
    expect(ev[0].data.batch).toEqual({ index: 1, count: 1 });
    expect(ev[0].data.links.map((l: { url: string }) => l.url)).toEqual(["https://example.com/1", "https://example.com/4"]);
  });

  it("splits link.bulk_created into parts of at most 100 links (250 rows: 3 events)", async () => {
    const { api, events, workspace } = await workspaceWithEvents();
    const links = Array.from({ length: 250 }, (_, i) => ({ url: `https://example.com/bulk/${i}`, title: `row ${i}` }));
    const a = await api.post("/api/v1/links/bulk", { links });
    expect(a.status).toBe(200);
    expect(a.body.results.every((r: { status: number }, i: number) => r.status === 201 && a.body.results[i].index === i)).toBe(true);
    const ev = await events();
    expect(ev.map((e) => e.type)).toEqual(["link.bulk_created", "link.bulk_created", "link.bulk_created"]);
    expect(ev.map((e) => e.data.batch)).toEqual([
      { index: 1, count: 3 },
      { index: 2, count: 3 },
      { index: 3, count: 3 },
    ]);
    expect(ev.map((e) => e.data.links.length)).toEqual([100, 100, 50]);
    expect(ev.flatMap((e) => e.data.links.map((l: { title: string }) => l.title))).toEqual(links.map((l) => l.title));
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(250);
  });

  it("fails the rows past the monthly allowance with the quota error and creates nothing after them", async () => {
    const { key, workspace } = await makeWorkspace("quota5");
    const api = client(env.app, key);
    expect((await api.post("/api/v1/links", { url: "https://example.com/first" })).status).toBe(201);
    expect((await api.post("/api/v1/links", { url: "https://example.com/second" })).status).toBe(201);
    const rows = [
      { url: "https://example.com/a" },
      { url: "bad" },
      { url: "https://example.com/b", alias: "b-alias" },
      { url: "https://example.com/c" },
      { url: "https://example.com/d" },
      { url: "worse" },
      { url: "https://example.com/e", alias: "e-alias" },
    ];
    const a = await api.post("/api/v1/links/bulk", { links: rows });
    const QUOTA = { error: "quota", key: "MaxLinks", limit: 5, current: 5, upgrade: true };
    expect(a.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 201, 201, 403, 400, 403]);
    expect(a.body.results[4].error).toEqual(QUOTA);
    expect(a.body.results[6].error).toEqual(QUOTA);
    const links = await db().link.findMany({ where: { workspaceId: workspace.id }, orderBy: { id: "asc" } });
    expect(links.map((l) => l.url)).toEqual([
      "https://example.com/first",
      "https://example.com/second",
      "https://example.com/a",
      "https://example.com/b",
      "https://example.com/c",
    ]);
    expect((await db().monthlyUsage.findFirstOrThrow({ where: { workspaceId: workspace.id } })).created).toBe(5);
    // Deleting does not give the allowance back.
    expect((await api.delete(`/api/v1/links/${a.body.results[0].link.code}`)).status).toBe(200);
    const b = await api.post("/api/v1/links/bulk", { links: [{ url: "https://example.com/x" }, { url: "https://example.com/y" }] });
    expect(b.body.results.map((r: { status: number }) => r.status)).toEqual([403, 403]);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(4);
  });

  it("refuses the whole request for 0 or more than 1000 rows or a malformed body, creating and spending nothing", async () => {
    const { api, workspace, events } = await workspaceWithEvents();
    for (const body of [
      { links: [] },
      { links: Array.from({ length: 1001 }, () => ({ url: "https://example.com" })) },
      { links: "x" },
      { rows: [] },
      [{ url: "https://example.com" }],
    ]) {
      const a = await api.post("/api/v1/links/bulk", body);
      expect(a.status).toBe(400);
      errorSchemas.validation.parse(a.body);
    }
    // Refused whole: no link, no allowance spent, no event, no delivery.
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect((await db().monthlyUsage.findMany({ where: { workspaceId: workspace.id } })).reduce((n, u) => n + u.created, 0)).toBe(0);
    expect(await events()).toEqual([]);
    expect(await db().delivery.count({ where: { endpoint: { workspaceId: workspace.id } } })).toBe(0);
    const full = await api.post("/api/v1/links/bulk", {
      links: Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/k/${i}` })),
    });
    expect(full.status).toBe(200);
    expect(full.body.results).toHaveLength(1000);
  });
});

describe("list", () => {
  it("pages newest first with an opaque cursor, stable under inserts between pages", async () => {
    const { api } = await workspaceWithEvents();
    const made: number[] = [];
    for (let i = 0; i < 7; i++) made.push((await api.post("/api/v1/links", { url: `https://example.com/p/${i}` })).body.id);
    const first = await api.get("/api/v1/links?size=3");
    listLinksResponseSchema.parse(first.body);
    expect(first.body.links.map((l: { id: number }) => l.id)).toEqual(made.slice(4).reverse());
    // New links arriving meanwhile do not shift the next pages.
    for (let i = 0; i < 2; i++) await api.post("/api/v1/links", { url: `https://example.com/late/${i}` });
    const second = await api.get(`/api/v1/links?size=3&cursor=${first.body.nextCursor}`);
    expect(second.body.links.map((l: { id: number }) => l.id)).toEqual(made.slice(1, 4).reverse());
    const third = await api.get(`/api/v1/links?size=3&cursor=${second.body.nextCursor}`);
    expect(third.body.links.map((l: { id: number }) => l.id)).toEqual([made[0]]);
    expect(third.body.nextCursor).toBeNull();
    const all = await api.get("/api/v1/links");
    expect(all.body.links).toHaveLength(9);
    expect(all.body.nextCursor).toBeNull();
  });

  it("answers 50 links per page when size is not given", async () => {
    const { api, workspace } = await workspaceWithEvents();
    const rows = Array.from({ length: 51 }, (_, i) => ({ url: `https://example.com/size/${i}` }));
    expect((await api.post("/api/v1/links/bulk", { links: rows })).status).toBe(200);
    expect(await db().link.count({ where: { workspaceId: workspace.id } })).toBe(51);
    const first = await api.get("/api/v1/links");
    expect(first.body.links).toHaveLength(50);
    expect(first.body.nextCursor).not.toBeNull();
    const rest = await api.get(`/api/v1/links?cursor=${first.body.nextCursor}`);
    expect(rest.body.links).toHaveLength(1);
    expect(rest.body.nextCursor).toBeNull();
  });

  it("filters by q (url, code, title; any case), folder (and subfolders) and domain", async () => {
    const { api, workspace } = await workspaceWithEvents();
    const host = `list-${Date.now().toString(36)}.test`;
    await makeDomain(workspace.id, host);
    await api.post("/api/v1/links", { url: "https://shop.example/Summer", folder: "mkt" });
    await api.post("/api/v1/links", { url: "https://example.com/x", alias: "summer-code", folder: "mkt/2026" });
    await api.post("/api/v1/links", { url: "https://example.com/y", title: "SUMMER title", folder: "mktg" });
    await api.post("/api/v1/links", { url: "https://example.com/z", domain: host, title: "50% off_now" });
    const codes = async (q: string) => (await api.get(`/api/v1/links?${q}`)).body.links.map((l: { url: string }) => l.url).sort();
    expect(await codes("q=summer")).toEqual(["https://example.com/x", "https://example.com/y", "https://shop.example/Summer"]);
    expect(await codes("q=%25")).toEqual(["https://example.com/z"]);
    expect(await codes("q=f_n")).toEqual(["https://example.com/z"]);
    expect(await codes("q=%5C")).toEqual([]);
    expect(await codes("folder=mkt")).toEqual(["https://example.com/x", "https://shop.example/Summer"]);
    expect(await codes("folder=mkt/2026")).toEqual(["https://example.com/x"]);
    expect(await codes(`domain=${host}`)).toEqual(["https://example.com/z"]);
    expect(await codes("domain=localhost:3000&q=example.com")).toEqual(["https://example.com/x", "https://example.com/y"]);
  });
});

describe("API keys", () => {
  it("stores only a hash and a prefix, records lastUsedAt, and caps live keys per plan even under parallel creation", async () => {
    const { workspace, keys } = await makeWorkspace("pro", { keys: 0 });
    expect(keys).toEqual([]);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => createApiKey(workspace, { name: "parallel" })));
    const made = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    expect(made).toHaveLength(3);
    const refusal = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refusal.reason.code).toBe("limit");
    expect(refusal.reason.message).toMatch(/Pro plan allows 3 live API keys/);
    for (const k of made) {
      expect(k.key).toMatch(/^lh_[A-Za-z0-9]{40}$/);
      const row = await db().apiKey.findUniqueOrThrow({ where: { id: k.id } });
      expect(row.hash).toBe(hashApiKey(k.key));
      expect(row.prefix).toBe(k.key.slice(0, 11));
      expect(JSON.stringify(row)).not.toContain(k.key);
    }
    expect((await db().apiKey.findUniqueOrThrow({ where: { id: made[0].id } })).lastUsedAt).toBeNull();
    expect((await client(env.app, made[0].key).get("/api/v1/links")).status).toBe(200);
    await expect.poll(async () => (await db().apiKey.findUniqueOrThrow({ where: { id: made[0].id } })).lastUsedAt).not.toBeNull();
  });

  // Three CLI runs, each a new node process (the Prisma client, a connection): up to 15 s
  // each when the 2 cores are shared with many test processes.
  it("creates and revokes keys with the admin CLI (key:create, key:revoke)", async () => {
    const { workspace } = await makeWorkspace("pro", { keys: 0 });
    const root = path.resolve(import.meta.dirname, "../..");
    const admin = async (...args: string[]) => {
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [...nodeFlags, adminCli, ...args], {
          cwd: root,
          env: { ...process.env, DATABASE_URL: env.databaseUrl },
        });
        return { code: 0, out: JSON.parse(stdout) };
      } catch (e) {
        const err = e as { code: number; stdout: string };
        return { code: err.code, out: JSON.parse(err.stdout) };
      }
    };
    const made = await admin("key:create", "--slug", workspace.slug, "--name", "ci", "--expires-in-days", "30");
    expect(made.code).toBe(0);
    expect(Object.keys(made.out).sort()).toEqual(["id", "key"]);
    expect(made.out.key).toMatch(/^lh_[A-Za-z0-9]{40}$/);
    const row = await db().apiKey.findUniqueOrThrow({ where: { id: made.out.id } });
    expect(row.name).toBe("ci");
    expect(Math.round((row.expiresAt!.getTime() - Date.now()) / 86_400_000)).toBe(30);
    expect((await client(env.app, made.out.key).get("/api/v1/links")).status).toBe(200);
    const revoked = await admin("key:revoke", "--slug", workspace.slug, "--id", String(made.out.id));
    expect(revoked).toEqual({ code: 0, out: { id: made.out.id, revoked: true } });
    expect((await client(env.app, made.out.key).get("/api/v1/links")).status).toBe(401);
    const bad = await admin("key:create", "--slug", workspace.slug, "--expires-in-days", "soon");
    expect(bad.code).toBe(1);
    expect(bad.out.error).toBe("validation");
  }, 120_000);
});

describe("API keys page", () => {
  it("lists keys by prefix with their dates and status; owners get the form and Revoke, members a read-only list", async () => {
    const { workspace, keys } = await makeWorkspace("pro", { keys: 2 });
    await revokeApiKey(workspace, keys[1].id);
    const owner = await createUser({ email: `owner-${workspace.slug}@example.test`, password: "password1" });
    const member = await createUser({ email: `member-${workspace.slug}@example.test`, password: "password1" });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: owner.id, role: "owner" } });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: member.id, role: "member" } });
    const page = async (email: string) => {
      const cookie = await signInCookie(env.app.url, email, "password1");
      const res = await fetch(`${env.app.url}/w/${workspace.slug}/settings/api-keys`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const ownerHtml = await page(owner.email);
    for (const k of keys) expect(ownerHtml).toContain(k.key!.slice(0, 11));
    for (const k of keys) expect(ownerHtml).not.toContain(k.key);
    expect(ownerHtml).toContain("Create key");
    expect(ownerHtml).toContain("Revoke");
    expect(ownerHtml).toMatch(/revoked/);
    expect(ownerHtml).toMatch(/1 of 3 live keys/);
    const memberHtml = await page(member.email);
    expect(memberHtml).toContain(keys[0].key!.slice(0, 11));
    expect(memberHtml).toContain("Only owners and admins can create or revoke API keys.");
    expect(memberHtml).not.toContain(">Revoke<");
  }, 60_000);
});

describe("OpenAPI document and reference page", () => {
  it("serves the OpenAPI 3.1 document generated from the schemas, and a readable reference page", async () => {
    const doc = await client(env.app, null).get("/api/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths).sort()).toEqual([
      "/analytics",
      "/analytics/export",
      "/domains",
      "/domains/{host}",
      "/domains/{host}/verify",
      "/links",
      "/links/bulk",
      "/links/export",
      "/links/{code}",
      "/tags",
      "/tags/{id}",
    ]);
    expect(doc.body.components.schemas.CreateLink.required).toEqual(["url"]);
    expect(doc.body.components.schemas.CreateLink.additionalProperties).toBe(false);
    expect(Object.keys(doc.body.components.schemas.Link.properties)).toContain("hasPassword");
    const page = await client(env.app, null).get("/docs/api");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    for (const text of [
      "POST",
      "/api/v1/links/bulk",
      "ambiguous_code",
      "X-RateLimit-Remaining",
      "curl",
      "hasPassword",
      "/api/v1/analytics/export",
      "groupBy",
    ])
      expect(page.text).toContain(text);
    expect(page.text).not.toMatch(/<(script|link)[^>]+(src|href)="https?:\/\//);
  });
});
