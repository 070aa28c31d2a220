import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickedBacklogByLink } from "../../lib/analytics/store/clicked-feed.ts";
import { database, db } from "../../lib/db/client.ts";
import { planOf, webhookRatePerSecond } from "../../lib/plans/index.ts";
import { startApiTest, TEST_SHORT_DOMAIN, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";
import { createLink, request } from "./redirects-helpers.ts";
import { emitEvent, eventually, newWorkspace } from "./webhooks-helpers.ts";

// The Developers page shows each endpoint's backlog (app/w/[slug]/developers/backlog-line.tsx):
// its deliveries due and not yet sent, and how long the oldest has waited. Real pending deliveries
// in the database of the running app, whose own scheduler is running: the endpoint's next send
// slot is an hour ahead (as after a long backlog under the plan's rate, lib/webhooks/pacing.ts),
// so the scheduler leaves its due deliveries waiting, exactly the state the line reports. For an
// endpoint that receives link.clicked, the line also counts the clicks still behind its cursor
// (lib/webhooks/backlog.ts): real clicks through the app's redirect, while the endpoint's rate is
// taken by a second's worth of waiting deliveries, so the app's cursor reader leaves them there.

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

/** The page's HTML without tags and React's text separators: what a reader sees, in order. */
const visibleText = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

/** The list item of the endpoint with `url` on the page (from its link to the end of its <li>). */
function endpointItem(html: string, url: string): string {
  const items = html.split("<li").filter((li) => li.includes(`>${url}</a>`));
  expect(items, `one list item for ${url}`).toHaveLength(1);
  return items[0].split("</li>")[0];
}

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0";

describe("the endpoint backlog on the Developers page", () => {
  it("shows the number of due, unsent deliveries per endpoint and the age of the oldest, and nothing for an endpoint without any", async () => {
    const ws = await newWorkspace("team");
    const cookie = await signInCookie(env.app.url, ws.ownerEmail, "password-123456");
    const inAnHour = new Date(Date.now() + 3_600_000);
    const behind = await db().webhookEndpoint.create({
      data: { workspaceId: ws.id, url: "https://behind.example.test/hook", secret: "whsec_" + "b".repeat(48), sendSlotAt: inAnHour },
    });
    // subscribed to another type only: none of the events below is for it
    const calm = await db().webhookEndpoint.create({
      data: {
        workspaceId: ws.id,
        url: "https://calm.example.test/hook",
        secret: "whsec_" + "c".repeat(48),
        allEvents: false,
        events: ["domain.verified"],
        sendSlotAt: inAnHour,
      },
    });

    const deliveries: number[] = [];
    for (let i = 0; i < 10; i++) deliveries.push(...(await emitEvent(ws, "member.joined")).deliveryIds);
    expect(deliveries).toHaveLength(10);
    expect(await db().delivery.count({ where: { endpointId: calm.id } })).toBe(0);
    // Not part of the backlog: one delivered, one failed for good, one retry due only later. The
    // oldest of the seven left has been due for 90 s.
    await db().delivery.update({ where: { id: deliveries[7] }, data: { status: "delivered", nextAttemptAt: null } });
    await db().delivery.update({ where: { id: deliveries[8] }, data: { status: "failed", nextAttemptAt: null } });
    await db().delivery.update({ where: { id: deliveries[9] }, data: { nextAttemptAt: inAnHour } });
    await db().delivery.update({ where: { id: deliveries[0] }, data: { nextAttemptAt: new Date(Date.now() - 90_000) } });

    const page = async () => {
      const res = await fetch(`${env.app.url}/w/${ws.slug}/developers`, { headers: { cookie }, redirect: "manual" });
      expect(res.status).toBe(200);
      return res.text();
    };
    let html = await page();
    const line = /Backlog: (\d+) (deliveries|delivery) waiting, the oldest due (\d+) s ago/;
    const shown = line.exec(visibleText(endpointItem(html, behind.url)));
    expect(shown, visibleText(endpointItem(html, behind.url))).not.toBeNull();
    expect(shown![1]).toBe("7");
    expect(shown![2]).toBe("deliveries");
    // 90 s when the page was made, give or take the time it took to get here
    expect(Number(shown![3])).toBeGreaterThanOrEqual(90);
    expect(Number(shown![3])).toBeLessThan(90 + 60);
    expect(endpointItem(html, calm.url)).not.toContain("endpoint-backlog");
    // still waiting: the scheduler left them alone while the page was read
    expect(await db().delivery.count({ where: { endpointId: behind.id, status: "pending" } })).toBe(8);

    // one left: the singular, and the oldest is now a younger one
    await db().delivery.updateMany({ where: { id: { in: deliveries.slice(0, 6) } }, data: { status: "delivered", nextAttemptAt: null } });
    html = await page();
    const one = line.exec(visibleText(endpointItem(html, behind.url)));
    expect(one?.slice(1, 3)).toEqual(["1", "delivery"]);
    expect(Number(one![3])).toBeLessThan(60);

    // none left: no line at all
    await db().delivery.update({ where: { id: deliveries[6] }, data: { status: "delivered", nextAttemptAt: null } });
    html = await page();
    expect(endpointItem(html, behind.url)).not.toContain("endpoint-backlog");
    expect(visibleText(html)).not.toContain("Backlog:");
  });
  it("counts link.clicked clicks still behind the endpoint's cursor, in its scope, exactly, on the Developers page and the endpoint's page", async () => {
    const ws = await newWorkspace("team");
    const cookie = await signInCookie(env.app.url, ws.ownerEmail, "password-123456");
    const inScope = await createLink(ws.id, { code: "bk-in" });
    const outOfScope = await createLink(ws.id, { code: "bk-out" });
    const ep = await db().webhookEndpoint.create({
      data: {
        workspaceId: ws.id,
        url: "https://clicks.example.test/hook",
        secret: "whsec_" + "k".repeat(48),
        allEvents: false,
        events: ["link.clicked"],
        clickLinkIds: [inScope.id],
      },
    });
    // the endpoint's rate is taken: a second's worth of link.clicked deliveries waits unattempted
    // (due only in an hour, so none is sent and none is in the due count), and the reader writes no more
    const rate = webhookRatePerSecond(planOf("team"));
    const waiting = Array.from({ length: rate }, () => "evt_" + randomBytes(16).toString("hex"));
    await db().webhookEvent.createMany({
      data: waiting.map((id) => ({ id, workspaceId: ws.id, type: "link.clicked", createdAt: new Date(), body: "{}" })),
    });
    await db().delivery.createMany({
      data: waiting.map((eventId) => ({ eventId, endpointId: ep.id, nextAttemptAt: new Date(Date.now() + 3_600_000) })),
    });

    const click = async (code: string) =>
      expect((await request(env.app.port, TEST_SHORT_DOMAIN, `/${code}`, { headers: { "user-agent": FIREFOX } })).status).toBe(302);
    for (let i = 0; i < 12; i++) await click("bk-in");
    for (let i = 0; i < 5; i++) await click("bk-out");
    await eventually(
      async () =>
        (await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from analytics.click_event where workspace_id = ${ws.id}`)[0].n ===
        17,
      15_000,
      "the 17 clicks stored",
    );

    const line = /Backlog: ([\d,]+\+?) (clicks|click) not yet delivered, the oldest from (\d+) s ago/;
    const developers = await fetch(`${env.app.url}/w/${ws.slug}/developers`, { headers: { cookie }, redirect: "manual" });
    expect(developers.status).toBe(200);
    const item = visibleText(endpointItem(await developers.text(), ep.url));
    const shown = line.exec(item);
    expect(shown, item).not.toBeNull();
    expect(shown!.slice(1, 3)).toEqual(["12", "clicks"]); // exact: bk-out is outside the scope
    expect(Number(shown![3])).toBeLessThan(120);
    expect(item).not.toMatch(/deliveries waiting|delivery waiting/); // the waiting ones are not due

    const endpointPage = await fetch(`${env.app.url}/w/${ws.slug}/developers/${ep.id}`, { headers: { cookie }, redirect: "manual" });
    expect(endpointPage.status).toBe(200);
    expect(line.exec(visibleText(await endpointPage.text()))?.slice(1, 3)).toEqual(["12", "clicks"]);
    // still behind the cursor: the reader wrote no delivery meanwhile
    expect(await db().delivery.count({ where: { endpointId: ep.id } })).toBe(rate);

    // the store's count is bounded: it stops at the rows it may examine and says so
    const all = await clickedBacklogByLink(database().analytics, ws.id, ep.id);
    expect(Object.fromEntries([...all!.links].map(([id, n]) => [id, n.count]))).toEqual({ [inScope.id]: 12, [outOfScope.id]: 5 });
    expect(all!.atLeast).toBe(false);
    const capped = await clickedBacklogByLink(database().analytics, ws.id, ep.id, 10);
    expect([...capped!.links.values()].reduce((n, l) => n + l.count, 0)).toBe(10);
    expect(capped!.atLeast).toBe(true);

    // switched off: nothing is owed to it any more (as no event is to a disabled endpoint)
    await db().webhookEndpoint.update({ where: { id: ep.id }, data: { enabled: false } });
    const off = await fetch(`${env.app.url}/w/${ws.slug}/developers`, { headers: { cookie }, redirect: "manual" });
    expect(visibleText(endpointItem(await off.text(), ep.url))).not.toContain("Backlog:");
  });
});
