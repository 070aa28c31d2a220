import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { serializeEnvelope } from "../../lib/events/index.ts";
import { createLink } from "../../lib/links/create.ts";
import { toWebhookLink } from "../../lib/links/serialize.ts";
import type { CreateLinkInput } from "../../lib/links/schemas.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The shapes of a single create (lib/links/create-plan.ts) through the link service on real
// PostgreSQL: on a plan with webhooks the link.created event in the create's own statement (written
// only once an enabled endpoint exists, its body exactly the envelope of the stored link), and tags
// written in the same statement.

let drop: () => Promise<void>;
let dir: string;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-shapes-"));
  const plansFile = path.join(dir, "plans.json");
  const features = ["ApiAccess", "CustomAliases", "Webhooks"];
  const plans = {
    hooks: { name: "Hooks", rateLimit: null, liveKeys: 1, maxLinks: 100, webhookEndpoints: 3, features },
    plain: { name: "Plain", rateLimit: null, liveKeys: 1, maxLinks: 100, webhookEndpoints: 0, features },
  };
  fs.writeFileSync(plansFile, JSON.stringify({ plans }));
  process.env.PLANS_FILE = plansFile;
  const { resetPlans } = await import("../../lib/plans/index.ts");
  resetPlans();
  await useDatabaseInProcess(database.url);
});
afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await drop?.();
  fs.rmSync(dir, { recursive: true, force: true });
});

const workspace = (slug: string, plan: "hooks" | "plain") => db().workspace.create({ data: { slug, name: slug, plan } });
const create = (ws: Awaited<ReturnType<typeof workspace>>, input: Partial<CreateLinkInput>) =>
  createLink(ws, { url: "https://example.com/x", ...input } as CreateLinkInput);
const endpoint = (workspaceId: number, enabled: boolean) =>
  db().webhookEndpoint.create({ data: { workspaceId, url: "https://hooks.example.com/in", secret: "whsec_test", enabled } });

describe("a single create on a plan with webhooks", () => {
  it("records no event while the workspace has no enabled endpoint, and link.created with its delivery once it has one", async () => {
    const ws = await workspace("shape-hooks", "hooks");
    await create(ws, { alias: "before" });
    await endpoint(ws.id, false);
    await create(ws, { alias: "disabled-only" });
    expect(await db().webhookEvent.count({ where: { workspaceId: ws.id } })).toBe(0);

    const enabled = await endpoint(ws.id, true);
    const link = await create(ws, { alias: "after", tags: ["Launch"] });
    const events = await db().webhookEvent.findMany({ where: { workspaceId: ws.id }, include: { deliveries: true } });
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe("link.created");
    expect(JSON.parse(events[0].body).data.link).toMatchObject({ id: link.id, code: "after" });
    const stored = await db().link.findUniqueOrThrow({ where: { id: link.id } });
    const envelope = serializeEnvelope(events[0].id, "link.created", events[0].createdAt, ws, { link: toWebhookLink(stored, link.host) });
    expect(events[0].body).toBe(envelope);
    expect(events[0].deliveries.map((d) => d.endpointId)).toEqual([enabled.id]);
    expect(link.tagNames).toEqual(["Launch"]);
    expect(await db().monthlyUsage.findMany({ where: { workspaceId: ws.id }, select: { created: true } })).toEqual([{ created: 3 }]);
  });

  it("answers a taken alias with 409 and leaves no event, link or allowance behind", async () => {
    const ws = await workspace("shape-taken", "hooks");
    await endpoint(ws.id, true);
    await create(ws, { alias: "once" });
    await expect(create(ws, { alias: "once", tags: ["Never"] })).rejects.toMatchObject({ code: "alias_taken" });
    expect(await db().webhookEvent.count({ where: { workspaceId: ws.id } })).toBe(1);
    expect(await db().tag.count({ where: { workspaceId: ws.id } })).toBe(0);
    expect(await db().monthlyUsage.findMany({ where: { workspaceId: ws.id }, select: { created: true } })).toEqual([{ created: 1 }]);
  });
});

describe("a tagged create", () => {
  it("reuses the workspace's tags ignoring case, creates the missing ones gray, and answers the names sorted", async () => {
    const ws = await workspace("shape-tags", "plain");
    await db().tag.create({ data: { workspaceId: ws.id, name: "Spring", nameKey: "spring", color: "green" } });
    const link = await create(ws, { tags: ["zeta", "SPRING", "alpha", "Zeta"] });
    expect(link.tagNames).toEqual(["alpha", "Spring", "zeta"]);
    const tags = await db().tag.findMany({ where: { workspaceId: ws.id }, orderBy: { nameKey: "asc" } });
    expect(tags.map((t) => [t.name, t.color])).toEqual([
      ["alpha", "gray"],
      ["Spring", "green"],
      ["zeta", "gray"],
    ]);
    expect(await db().linkTag.count({ where: { linkId: link.id } })).toBe(3);
  });

  it("leaves no new tag behind when it is refused", async () => {
    const ws = await workspace("shape-tags-refused", "plain");
    await create(ws, { alias: "held" });
    await expect(create(ws, { alias: "held", tags: ["orphan"] })).rejects.toMatchObject({ code: "alias_taken" });
    expect(await db().tag.count({ where: { workspaceId: ws.id } })).toBe(0);
  });

  it("gives parallel creates that name the same new tag one tag, on every link", async () => {
    const ws = await workspace("shape-tags-race", "plain");
    const links = await Promise.all(Array.from({ length: 16 }, () => create(ws, { tags: ["Fresh"] })));
    const tags = await db().tag.findMany({ where: { workspaceId: ws.id } });
    expect(tags).toHaveLength(1);
    expect(links.map((l) => l.tagNames)).toEqual(links.map(() => ["Fresh"]));
    expect(await db().linkTag.count({ where: { tagId: tags[0].id } })).toBe(16);
  });
});
