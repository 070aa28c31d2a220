import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// The Links page's bulk actions (lib/links/bulk-edit.ts): delete, move, activate/deactivate and
// expiry on selected links, workspace-scoped, bounded and in one transaction, with the events the
// single edit and delete write; and the page's sorted, counted list (lib/links/list-page.ts).

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
  const api = client(env.app, w.key);
  const events = async () =>
    (await db().webhookEvent.findMany({ where: { workspaceId: w.workspace.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }))
      .map((e) => ({ type: e.type, ...JSON.parse(e.body) }))
      .filter((e) => e.type !== "link.created");
  const make = async (n: number, body: Record<string, unknown> = {}) => {
    const out: { id: number; code: string }[] = [];
    for (let i = 0; i < n; i++) out.push((await api.post("/api/v1/links", { url: `https://example.com/${i}`, ...body })).body);
    return out;
  };
  return { ...w, api, events, make };
}

const snapshot = (workspaceId: number) =>
  db().link.findMany({
    where: { workspaceId },
    orderBy: { id: "asc" },
    select: { id: true, folder: true, active: true, expiresOn: true, updatedAt: true },
  });

describe("bulk actions", () => {
  it("moves, deactivates, sets and clears expiry; one link.updated per changed link with its changed fields", async () => {
    const { bulkEditLinks } = await import("../../lib/links/bulk-edit.ts");
    const { workspace: w, make, api, events } = await workspace();
    const [a, b, c] = await make(3);
    await api.patch(`/api/v1/links/${c.code}`, { folder: "spring" });
    const skip = (await events()).length;
    const ids = [a.id, b.id, c.id];
    expect(await bulkEditLinks(w, { action: "move", ids, folder: "spring" })).toEqual({ action: "move", changed: 2 });
    expect(await bulkEditLinks(w, { action: "setActive", ids, active: false })).toEqual({ action: "setActive", changed: 3 });
    const expiry = Math.floor(Date.now() / 1000) + 86_400;
    expect(await bulkEditLinks(w, { action: "setExpiry", ids: [a.id], expiresOn: expiry })).toEqual({ action: "setExpiry", changed: 1 });
    expect(await bulkEditLinks(w, { action: "setExpiry", ids, expiresOn: null })).toEqual({ action: "setExpiry", changed: 1 });
    const got = (await api.get(`/api/v1/links/${a.code}`)).body;
    expect(got).toMatchObject({ folder: "spring", active: false, expiresOn: null });
    const updated = (await events()).slice(skip);
    expect(updated.every((e) => e.type === "link.updated")).toBe(true);
    expect(updated.map((e) => [e.data.link.code, e.data.changed])).toEqual([
      [a.code, ["folder"]],
      [b.code, ["folder"]],
      [a.code, ["active"]],
      [b.code, ["active"]],
      [c.code, ["active"]],
      [a.code, ["expiresOn"]],
      [a.code, ["expiresOn"]],
    ]);
  });

  it("deletes the selected links with link.deleted for each, as it was", async () => {
    const { bulkEditLinks } = await import("../../lib/links/bulk-edit.ts");
    const { workspace: w, make, api, events } = await workspace();
    const [a, b, keep] = await make(3, { title: "to go" });
    expect(await bulkEditLinks(w, { action: "delete", ids: [b.id, a.id] })).toEqual({ action: "delete", changed: 2 });
    expect((await api.get(`/api/v1/links/${a.code}`)).status).toBe(404);
    expect((await api.get(`/api/v1/links/${keep.code}`)).status).toBe(200);
    const deleted = (await events()).filter((e) => e.type === "link.deleted");
    expect(deleted.map((e) => [e.data.link.code, e.data.link.title])).toEqual([
      [a.code, "to go"],
      [b.code, "to go"],
    ]);
  });

  it("never touches another workspace's links: a foreign id refuses the whole call with 404 and nothing changes", async () => {
    const { bulkEditLinks } = await import("../../lib/links/bulk-edit.ts");
    const mine = await workspace();
    const theirs = await workspace();
    const [own] = await mine.make(1);
    const [other] = await theirs.make(1);
    const before = [await snapshot(mine.workspace.id), await snapshot(theirs.workspace.id)];
    for (const input of [
      { action: "delete" as const, ids: [own.id, other.id] },
      { action: "move" as const, ids: [other.id, own.id], folder: "x" },
      { action: "setActive" as const, ids: [other.id], active: false },
    ]) {
      await expect(bulkEditLinks(mine.workspace, input)).rejects.toMatchObject({ code: "not_found" });
    }
    expect([await snapshot(mine.workspace.id), await snapshot(theirs.workspace.id)]).toEqual(before);
    expect(await mine.events()).toEqual([]);
    expect(await theirs.events()).toEqual([]);
  });

  it("refuses more than 100 ids (and none) with a validation error, before reading anything", async () => {
    const { bulkEditLinksSchema, BULK_EDIT_MAX } = await import("../../lib/links/bulk-edit.ts");
    const { parseLinkInput } = await import("../../lib/links/rules.ts");
    const { errorStatus } = await import("../../lib/api/error-body.ts");
    expect(BULK_EDIT_MAX).toBe(100);
    const ids = Array.from({ length: 101 }, (_, i) => i + 1);
    for (const input of [
      { action: "delete", ids },
      { action: "delete", ids: [] },
      { action: "move", ids: [1], folder: "/a//b" },
    ]) {
      let error: unknown;
      try {
        parseLinkInput(bulkEditLinksSchema, input);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(input).slice(0, 60)).toMatchObject({ code: "validation" });
      expect(errorStatus(error as never)).toBe(400);
    }
  });

  it("is one transaction: one link whose start is after the new expiry refuses the call and no link changes", async () => {
    const { bulkEditLinks } = await import("../../lib/links/bulk-edit.ts");
    const { workspace: w, make, events } = await workspace();
    const later = Math.floor(Date.now() / 1000) + 10 * 86_400;
    const fine = await make(2);
    const [late] = await make(1, { startsOn: later });
    const before = await snapshot(w.id);
    await expect(
      bulkEditLinks(w, { action: "setExpiry", ids: [...fine, late].map((l) => l.id), expiresOn: later - 86_400 }),
    ).rejects.toMatchObject({
      code: "validation",
      message: expect.stringContaining(late.code),
    });
    expect(await snapshot(w.id)).toEqual(before);
    expect(await events()).toEqual([]);
  });

  it("refuses an expiry on a plan without LinkExpiry (403 feature); clearing needs no feature", async () => {
    const { bulkEditLinks } = await import("../../lib/links/bulk-edit.ts");
    const { workspace: w, make } = await workspace("free");
    const [a] = await make(1);
    await expect(bulkEditLinks(w, { action: "setExpiry", ids: [a.id], expiresOn: 2_000_000_000 })).rejects.toMatchObject({
      code: "feature",
    });
    expect(await bulkEditLinks(w, { action: "setExpiry", ids: [a.id], expiresOn: null })).toEqual({ action: "setExpiry", changed: 0 });
  });
});

describe("the Links page's list", () => {
  it("sorts by created, clicks and last click in both directions, pages by number and counts the matches", async () => {
    const { listLinksPage, linksPageQuerySchema } = await import("../../lib/links/list-page.ts");
    const { workspace: w, make } = await workspace();
    const links = await make(5);
    // clicks 0, 3, 1, 3, 0; last clicks only on the three clicked links
    const clicks = [0, 3, 1, 3, 0];
    for (const [i, l] of links.entries())
      await db().link.update({
        where: { id: l.id },
        data: { clicks: clicks[i], lastClickedAt: clicks[i] ? new Date(Date.UTC(2026, 0, 10 - i)) : null },
      });
    const codes = async (q: Record<string, unknown>) =>
      (await listLinksPage(w, linksPageQuerySchema.parse(q))).links.map((l) => links.findIndex((x) => x.id === l.id));
    expect(await codes({})).toEqual([4, 3, 2, 1, 0]);
    expect(await codes({ order: "asc" })).toEqual([0, 1, 2, 3, 4]);
    expect(await codes({ sort: "clicks" })).toEqual([3, 1, 2, 4, 0]);
    expect(await codes({ sort: "clicks", order: "asc" })).toEqual([0, 4, 2, 1, 3]);
    // newest click first, never-clicked last; oldest first puts never-clicked first
    expect(await codes({ sort: "lastClick" })).toEqual([1, 2, 3, 4, 0]);
    expect(await codes({ sort: "lastClick", order: "asc" })).toEqual([0, 4, 3, 2, 1]);

    const many = await make(23);
    const page2 = await listLinksPage(w, linksPageQuerySchema.parse({ page: 2 }));
    expect(page2).toMatchObject({ total: 28, capped: false, page: 2, size: 25 });
    expect(page2.links.map((l) => l.id)).toEqual([links[2].id, links[1].id, links[0].id]);
    // a page past the last shows the last
    expect((await listLinksPage(w, linksPageQuerySchema.parse({ page: 9 }))).page).toBe(2);
    expect((await listLinksPage(w, linksPageQuerySchema.parse({ size: 50 }))).links).toHaveLength(28);
    expect(many).toHaveLength(23);
    for (const bad of [{ size: 30 }, { page: 0 }, { page: 10_001 }, { sort: "title" }, { order: "up" }])
      expect(linksPageQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it("stops counting at the cap: the total is the cap, the page says so, and no page lies past it", async () => {
    const { listLinksPage, linksPageQuerySchema, LIST_COUNT_CAP } = await import("../../lib/links/list-page.ts");
    const { workspace: w, make } = await workspace();
    await make(4);
    expect(LIST_COUNT_CAP).toBe(10_000);
    const all = await listLinksPage(w, linksPageQuerySchema.parse({}));
    expect(all).toMatchObject({ total: 4, capped: false });
    // with a cap of 3 (the same query, a smaller bound)
    const capped = await listLinksPage(w, linksPageQuerySchema.parse({ page: 5 }), 3);
    expect(capped).toMatchObject({ total: 3, capped: true, page: 1 });
  });
});
