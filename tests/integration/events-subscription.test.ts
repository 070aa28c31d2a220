// Who receives an event is one rule (lib/events/subscription.ts) in three forms: a predicate, a
// Prisma filter (recordEvent) and a SQL condition (recordEventSql, the click flush's
// clickSubscribers). On the same endpoints in PostgreSQL, all three pick the same ones for every
// type, and the three writers (recordEvent, recordEventSql, recordClickedEvents) write deliveries
// for exactly those.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
});

afterAll(async () => {
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

type EndpointCase = {
  name: string;
  enabled?: boolean;
  allEvents?: boolean;
  events?: string[];
  clickFolders?: string[];
  clickTagIds?: number[];
  clickLinkIds?: number[];
};

/** Endpoints of an active workspace on a plan with webhooks: every way of selecting, and not. */
const ENDPOINTS: EndpointCase[] = [
  { name: "all events" },
  { name: "all events and link.clicked", events: ["link.clicked"] },
  { name: "member.joined only", allEvents: false, events: ["member.joined"] },
  { name: "link.created and link.clicked", allEvents: false, events: ["link.created", "link.clicked"] },
  { name: "nothing selected", allEvents: false, events: [] },
  { name: "switched off", enabled: false, events: ["link.clicked"] },
  { name: "clicks in folder promo", allEvents: false, events: ["link.clicked"], clickFolders: ["promo"] },
  { name: "clicks with tag 7", allEvents: false, events: ["link.clicked"], clickTagIds: [7] },
  { name: "clicks of link 42", allEvents: false, events: ["link.clicked"], clickLinkIds: [42] },
];

/** Clicked links as the click scope reads them (the rows' ids are made up: nothing joins them). */
const LINKS = [
  { id: 42, folder: "promo/spring", tagIds: [] },
  { id: 5, folder: "", tagIds: [7, 9] },
  { id: 6, folder: "promotions", tagIds: [8] },
];

describe("the subscription rule", () => {
  it("predicate, Prisma filter, SQL condition and the three writers pick the same endpoints", async () => {
    const { database: pools, db } = await import("../../lib/db/client.ts");
    const { recordEvent, withEvents, SELECTABLE_EVENT_TYPES } = await import("../../lib/events/index.ts");
    const { clickSubscribers, recordClickedEvents, recordEventSql } = await import("../../lib/events/sql.ts");
    const { inClickScope } = await import("../../lib/events/click-scope.ts");
    const { planSendsEvents, receives, subscribedCondition, subscribedWhere } = await import("../../lib/events/subscription.ts");
    const pool = pools().prismaPool;

    const names = new Map<number, string>();
    const workspaces: { id: number; slug: string; name: string; plan: string }[] = [];
    const workspace = async (label: string, plan: string, active: boolean, endpoints: EndpointCase[]) => {
      const tag = randomBytes(4).toString("hex");
      const ws = await db().workspace.create({ data: { slug: `sub-${tag}`, name: label, plan, active } });
      workspaces.push({ id: ws.id, slug: ws.slug, name: ws.name, plan: ws.plan });
      for (const { name, ...fields } of endpoints) {
        const ep = await db().webhookEndpoint.create({
          data: { workspaceId: ws.id, url: `https://hooks.example.test/${tag}`, secret: `whsec_${tag}`, ...fields },
        });
        names.set(ep.id, `${label}: ${name}`);
      }
    };
    await workspace("team", "team", true, ENDPOINTS);
    await workspace("switched-off workspace", "business", false, [{ name: "all events and link.clicked", events: ["link.clicked"] }]);
    await workspace("free plan", "free", true, [{ name: "all events and link.clicked", events: ["link.clicked"] }]);
    expect(planSendsEvents("free"), "the free plan has no webhooks").toBe(false);
    const wsIds = workspaces.map((w) => w.id);
    const sorted = (ids: Iterable<number>) => [...ids].map((id) => names.get(id)!).sort();

    const rows = await db().webhookEndpoint.findMany({ where: { workspaceId: { in: wsIds } }, include: { workspace: true } });
    const planOf = new Map(rows.map((r) => [r.id, r.workspace.plan]));
    for (const type of SELECTABLE_EVENT_TYPES) {
      const byWhere = await db().webhookEndpoint.findMany({
        where: { OR: wsIds.map((id) => subscribedWhere(id, type)) },
        select: { id: true },
      });
      const { rows: bySqlRows } = await pool.query<{ id: number }>(
        `select e.id from "WebhookEndpoint" e join "Workspace" w on w.id = e."workspaceId"
          where e."workspaceId" = any($1::int[]) and ${subscribedCondition("$2::text")}`,
        [wsIds, type],
      );
      // the filter and the condition leave the plan to JS, and the click scope to each click
      const chosen = (found: { id: number }[]) => found.map((r) => r.id).filter((id) => planSendsEvents(planOf.get(id)!));
      const [where, sql] = [chosen(byWhere), chosen(bySqlRows)];
      for (const link of type === "link.clicked" ? LINKS : [undefined]) {
        const what = `${type}${link ? ` on link ${link.id}` : ""}`;
        const inScope = (id: number) =>
          !link ||
          inClickScope(
            rows.find((r) => r.id === id)!,
            link,
          );
        const byPredicate = sorted(rows.filter((r) => receives(r, type, link)).map((r) => r.id));
        expect(sorted(where.filter(inScope)), `Prisma filter, ${what}`).toEqual(byPredicate);
        expect(sorted(sql.filter(inScope)), `SQL condition, ${what}`).toEqual(byPredicate);
      }
    }

    // the rule itself, at its edges: "all events" leaves link.clicked out; a folder has its subfolders only
    const predicate = (type: (typeof SELECTABLE_EVENT_TYPES)[number], link?: (typeof LINKS)[number]) =>
      sorted(rows.filter((r) => receives(r, type, link)).map((r) => r.id));
    expect(predicate("member.joined")).toEqual(["team: all events", "team: all events and link.clicked", "team: member.joined only"]);
    expect(predicate("link.clicked", LINKS[0])).toEqual([
      "team: all events and link.clicked",
      "team: clicks in folder promo",
      "team: clicks of link 42",
      "team: link.created and link.clicked",
    ]);
    expect(predicate("link.clicked", LINKS[2])).toEqual(["team: all events and link.clicked", "team: link.created and link.clicked"]);

    // the writers: each event's deliveries go to the endpoints the predicate picks
    const deliveredTo = async (deliveryIds: number[]) =>
      sorted((await db().delivery.findMany({ where: { id: { in: deliveryIds } }, select: { endpointId: true } })).map((d) => d.endpointId));
    for (const type of SELECTABLE_EVENT_TYPES.filter((t) => t !== "link.clicked")) {
      const expected = predicate(type);
      const viaPrisma: number[] = [];
      const viaSql: number[] = [];
      for (const ws of workspaces) {
        // no hand-off: these deliveries are only looked at
        viaPrisma.push(...(await withEvents(async (tx) => recordEvent(tx, ws, type, { n: 1 }), { afterCommit: () => {} })));
        viaSql.push(...(await recordEventSql(pool, ws, type, { n: 1 })));
      }
      expect(await deliveredTo(viaPrisma), `recordEvent, ${type}`).toEqual(expected);
      expect(await deliveredTo(viaSql), `recordEventSql, ${type}`).toEqual(expected);
    }
    const subscribers = await clickSubscribers(pool, wsIds);
    const clicks = workspaces.flatMap((ws) => LINKS.map((link) => ({ workspaceId: ws.id, linkId: link.id, at: Date.now() })));
    const deliveryIds = await recordClickedEvents(pool, subscribers, clicks, new Map(LINKS.map((l) => [l.id, l])), (_c, _l, i) => ({
      n: i,
    }));
    const delivered = await db().delivery.findMany({ where: { id: { in: deliveryIds } }, include: { event: true } });
    for (const [i, c] of clicks.entries()) {
      const ofClick = delivered.filter((d) => (JSON.parse(d.event.body) as { data: { n: number } }).data.n === i);
      const link = LINKS.find((l) => l.id === c.linkId)!;
      const expected = sorted(rows.filter((r) => r.workspaceId === c.workspaceId && receives(r, "link.clicked", link)).map((r) => r.id));
      expect(sorted(ofClick.map((d) => d.endpointId)), `recordClickedEvents, link ${c.linkId} in workspace ${c.workspaceId}`).toEqual(
        expected,
      );
    }
  });
});
