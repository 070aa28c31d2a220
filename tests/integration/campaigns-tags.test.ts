import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorSchemas } from "../../lib/api/schemas.ts";
import { db } from "../../lib/db/client.ts";
import { apiTagSchema, listTagsResponseSchema } from "../../lib/tags/schemas.ts";
import { client, makeWorkspace, pool, startApiTest, type ApiTestEnv } from "../support/api.ts";

// /api/v1/tags end to end: create, list, rename, recolour, delete, and every refusal (duplicate
// names ignoring case, bad names and colours, unknown and foreign tags).

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

describe("tag CRUD", () => {
  it("creates, lists (by name ignoring case), renames, recolours and deletes tags", async () => {
    const { api } = await workspace();
    const a = await api.post("/api/v1/tags", { name: "  spring 2026 ", color: "green" });
    expect(a.status).toBe(201);
    expect(apiTagSchema.parse(a.body)).toMatchObject({ name: "spring 2026", color: "green" });
    expect(Object.keys(a.body)).toEqual(["id", "name", "color", "createdOn"]);
    const b = await api.post("/api/v1/tags", { name: "Autumn" });
    expect(b.body.color).toBe("gray");

    const list = await api.get("/api/v1/tags");
    expect(list.status).toBe(200);
    expect(listTagsResponseSchema.parse(list.body).tags.map((t) => t.name)).toEqual(["Autumn", "spring 2026"]);

    const renamed = await api.patch(`/api/v1/tags/${a.body.id}`, { name: "Spring 2026" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...a.body, name: "Spring 2026" });
    const recoloured = await api.patch(`/api/v1/tags/${a.body.id}`, { color: "blue" });
    expect(recoloured.body).toEqual({ ...a.body, name: "Spring 2026", color: "blue" });
    const unchanged = await api.patch(`/api/v1/tags/${a.body.id}`, {});
    expect(unchanged.body).toEqual(recoloured.body);

    const deleted = await api.delete(`/api/v1/tags/${a.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe(`{"id":${a.body.id},"deleted":true}`);
    expect((await api.get("/api/v1/tags")).body.tags.map((t: { name: string }) => t.name)).toEqual(["Autumn"]);
  });

  it("refuses a duplicate name ignoring case with 400 validation and a message, on create and on rename", async () => {
    const { api } = await workspace();
    await api.post("/api/v1/tags", { name: "Launch" });
    const dup = await api.post("/api/v1/tags", { name: "LAUNCH" });
    expect(dup.status).toBe(400);
    errorSchemas.validation.parse(dup.body);
    expect(dup.body.messages).toEqual(['name: a tag named "LAUNCH" already exists in this workspace (names are compared ignoring case)']);

    const other = await api.post("/api/v1/tags", { name: "Other" });
    const rename = await api.patch(`/api/v1/tags/${other.body.id}`, { name: "launch" });
    expect(rename.status).toBe(400);
    expect(rename.body.messages[0]).toMatch(/already exists/);
    expect((await api.get("/api/v1/tags")).body.tags.map((t: { name: string }) => t.name)).toEqual(["Launch", "Other"]);
  });

  it("lets another workspace use the same name", async () => {
    const one = await workspace();
    const two = await workspace();
    expect((await one.api.post("/api/v1/tags", { name: "shared" })).status).toBe(201);
    expect((await two.api.post("/api/v1/tags", { name: "Shared" })).status).toBe(201);
  });

  it("creates a name once when many requests race for it (the database decides)", async () => {
    const { api, workspace: w } = await workspace("open");
    const answers = await pool(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? "race" : "RACE")),
      8,
      (name) => api.post("/api/v1/tags", { name }),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(7);
    expect(await db().tag.count({ where: { workspaceId: w.id } })).toBe(1);
  });

  it("refuses bad bodies with 400 validation", async () => {
    const { api } = await workspace();
    const cases: [unknown, RegExp][] = [
      [{}, /^name: /],
      [{ name: "" }, /^name: must not be empty/],
      [{ name: "   " }, /^name: must not be empty/],
      [{ name: "x".repeat(51) }, /^name: must be at most 50 characters/],
      [{ name: "a,b" }, /^name: must not contain a comma/],
      [{ name: "a\nb" }, /^name: must not contain control characters/],
      [{ name: "ok", color: "chartreuse" }, /^color: must be one of gray, red/],
      [{ name: "ok", extra: 1 }, /extra/],
      [{ name: 5 }, /^name: /],
    ];
    for (const [body, message] of cases) {
      const r = await api.post("/api/v1/tags", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.messages.join(" "), JSON.stringify(body)).toMatch(message);
    }
    const t = await api.post("/api/v1/tags", { name: "ok" });
    const bad = await api.patch(`/api/v1/tags/${t.body.id}`, { color: "nope" });
    expect(bad.status).toBe(400);
    expect((await api.call("POST", "/api/v1/tags", { body: "not json" })).status).toBe(400);
  });

  it("answers 404 not_found for an unknown tag, a non-number id and another workspace's tag", async () => {
    const mine = await workspace();
    const theirs = await workspace();
    const t = await theirs.api.post("/api/v1/tags", { name: "secret" });
    for (const path of [`/api/v1/tags/${t.body.id}`, "/api/v1/tags/999999999", "/api/v1/tags/abc", "/api/v1/tags/99999999999"]) {
      const patch = await mine.api.patch(path, { name: "x" });
      expect(patch.status, path).toBe(404);
      expect(patch.body).toEqual({ error: "not_found" });
      expect((await mine.api.delete(path)).status, path).toBe(404);
    }
    expect((await theirs.api.get("/api/v1/tags")).body.tags).toHaveLength(1);
  });

  it("deleting a tag removes it from its links and keeps the links", async () => {
    const { api, workspace: w } = await workspace();
    const t = await api.post("/api/v1/tags", { name: "gone" });
    const link = await db().link.create({ data: { workspaceId: w.id, code: `tg${Date.now() % 100000}`, url: "https://example.com/t" } });
    await db().linkTag.create({ data: { linkId: link.id, tagId: t.body.id } });
    expect((await api.delete(`/api/v1/tags/${t.body.id}`)).status).toBe(200);
    expect(await db().linkTag.count({ where: { linkId: link.id } })).toBe(0);
    expect(await db().link.findUnique({ where: { id: link.id } })).not.toBeNull();
  });

  it("answers other methods with 400 and unauthenticated calls with 401", async () => {
    const { api } = await workspace();
    expect((await api.call("PUT", "/api/v1/tags")).status).toBe(400);
    expect((await api.call("GET", "/api/v1/tags/1")).status).toBe(400);
    expect((await client(env.app, null).get("/api/v1/tags")).status).toBe(401);
  });
});
