// The click scope (lib/events/click-scope.ts) in its two forms: inClickScope in JavaScript and
// clickScopeCondition in SQL, which the link.clicked cursor reader's read applies
// (lib/analytics/store/clicked-feed.ts). On real "Link" and "LinkTag" rows (folders with
// subfolders and look-alike prefixes, tags, links, all) both pick the same links, and the read
// returns exactly the clicks whose link inClickScope keeps, a deleted link's in none.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHit } from "../support/click-hits.ts";
import { createTestDatabase, feedSettled, useDatabaseInProcess } from "../support/db.ts";
import type { ClickScopeColumns } from "../../lib/events/click-scope.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

const FOLDERS = ["", "spring", "spring/2026", "spring/2026/may", "spring-sale", "springs", "promo/spring", "sale_%", "saleX%"];

describe("the click scope in SQL", () => {
  it("clickScopeCondition and inClickScope pick the same links, and the read returns exactly the in-scope clicks", async () => {
    const { db } = await import("../../lib/db/client.ts");
    const { newWorkspace } = await import("./webhooks-helpers.ts");
    const { createLink } = await import("./redirects-helpers.ts");
    const { clickScopeCondition, clickScopeValues, inClickScope, ALL_LINKS } = await import("../../lib/events/click-scope.ts");
    const { readWorkspaceClicksAfter } = await import("../../lib/analytics/store/clicked-feed.ts");
    const { ClickPipeline } = await import("../../lib/clicks/pipeline.ts");
    const { postgresClickWriter } = await import("../../lib/clicks/writer.ts");
    const { PostgresClickStore } = await import("../../lib/analytics/store/click-store.ts");

    const ws = await newWorkspace("team");
    const [red, blue, green] = await Promise.all(
      ["red", "blue", "green"].map((name) => db().tag.create({ data: { workspaceId: ws.id, name, nameKey: name } })),
    );
    const links: { id: number; folder: string; tagIds: number[] }[] = [];
    for (const [i, folder] of FOLDERS.entries()) {
      const link = await createLink(ws.id, { code: `scope-${i}` });
      const tagIds = [[red.id], [blue.id, green.id], [], [green.id]][i % 4];
      await db().link.update({ where: { id: link.id }, data: { folder } });
      for (const tagId of tagIds) await db().linkTag.create({ data: { linkId: link.id, tagId } });
      links.push({ id: link.id, folder, tagIds });
    }
    const deleted = await createLink(ws.id, { code: "scope-deleted" });

    const scopes: ClickScopeColumns[] = [
      ALL_LINKS,
      { ...ALL_LINKS, clickFolders: ["spring"] },
      { ...ALL_LINKS, clickFolders: ["spring/2026"] },
      { ...ALL_LINKS, clickFolders: ["spring-sale", "promo"] },
      { ...ALL_LINKS, clickFolders: ["sale_%"] },
      { ...ALL_LINKS, clickFolders: ["spr"] },
      { ...ALL_LINKS, clickTagIds: [red.id] },
      { ...ALL_LINKS, clickTagIds: [green.id, 999_999] },
      { ...ALL_LINKS, clickLinkIds: [links[1].id, links[4].id, deleted.id] },
      { ...ALL_LINKS, clickLinkIds: [999_999] },
    ];

    // every link clicked twice, the deleted one too (before it is deleted), one bot visit each
    const pipeline = new ClickPipeline(postgresClickWriter(pool, new PostgresClickStore(pool)), { geo: () => null });
    for (const link of [...links, deleted]) {
      pipeline.add(clickHit(ws.id, link.id, 0), true);
      pipeline.add(clickHit(ws.id, link.id, 1), true);
      pipeline.add({ ...clickHit(ws.id, link.id, 2), bot: true }, false);
    }
    await pipeline.flush();
    await db().link.delete({ where: { id: deleted.id } });
    await feedSettled(pool);
    const { rows: all } = await pool.query<{ link_id: number; tx: string; seq: string }>(
      `select e.link_id, e.tx::text as tx, e.seq::text as seq from analytics.click_event e
        where e.workspace_id = $1 and not e.bot order by e.tx, e.seq`,
      [ws.id],
    );
    expect(all).toHaveLength((links.length + 1) * 2);

    for (const scope of scopes) {
      const expected = links.filter((l) => inClickScope(scope, l)).map((l) => l.id);
      const { rows } = await pool.query<{ id: number }>(
        `select l.id from "Link" l where l."workspaceId" = $1 and ${clickScopeCondition("l", 2)} order by l.id`,
        [ws.id, ...clickScopeValues(scope)],
      );
      expect(
        rows.map((r) => r.id),
        JSON.stringify(scope),
      ).toEqual(expected);

      const read = await readWorkspaceClicksAfter(pool, ws.id, scope, { tx: "0", seq: "0" }, 1_000);
      const kept = all.filter((c) => expected.includes(c.link_id));
      expect(
        read.clicks.map((c) => [c.linkId, c.position.tx, c.position.seq]),
        JSON.stringify(scope),
      ).toEqual(kept.map((c) => [c.link_id, c.tx, c.seq]));
    }
    // the look-alikes: "spring" is spring and its subfolders, never spring-sale or springs
    const spring = links.filter((l) => inClickScope({ ...ALL_LINKS, clickFolders: ["spring"] }, l)).map((l) => l.folder);
    expect(spring).toEqual(["spring", "spring/2026", "spring/2026/may"]);
  });
});
