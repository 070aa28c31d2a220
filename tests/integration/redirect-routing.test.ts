import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { hashPassword } from "../../lib/auth/password.ts";
import { ClickPipeline } from "../../lib/clicks/pipeline.ts";
import { db, disconnectDb } from "../../lib/db/client.ts";
import type { LinkRouting } from "../../lib/links/routing-schema.ts";
import { variantId } from "../../lib/redirects/decide.ts";
import { createShortLinkHandler } from "../../lib/redirects/http.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { createLink, createWorkspace, request, within } from "./redirects-helpers.ts";

// Link routing on the redirect path over real HTTP against the built server and PostgreSQL
// (CONTRACT.md "Link routing, previews and forwarding"; docs/routing.md): the order of choice, the
// A/B split and its cookie, bots, preview cards, forwarding, and what a click records. Link.routing
// is written directly (as the links API stores it), so this file does not depend on the API.

const SHORT = "short.test";
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ws: { id: number };

const BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36";
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const PREVIEW_AGENTS = [
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  "Twitterbot/1.0",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
  "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  "WhatsApp/2.23.20.0 A",
  "TelegramBot (like TwitterBot)",
];

const get = (path: string, headers: Record<string, string> = {}) =>
  request(app.port, SHORT, path, { headers: { "user-agent": BROWSER, ...headers } });

/** A link with Link.routing written directly (Prisma update), as the links API will store it. */
async function routedLink(code: string, routing: LinkRouting, fields: Parameters<typeof createLink>[1] = { code }) {
  const link = await createLink(ws.id, { ...fields, code });
  await db().link.update({ where: { id: link.id }, data: { routing } });
  return link;
}

/** Every stored click event of a link, bots included. */
async function eventsOf(linkId: number): Promise<number> {
  const [{ n }] = await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from analytics.click_event where link_id = ${linkId}`;
  return n;
}

const VARIANTS = [
  { url: "https://a.example/", weight: 20 },
  { url: "https://b.example/", weight: 30 },
  { url: "https://c.example/", weight: 50 },
];

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  ws = await createWorkspace();
  app = await startApp(database.url, { SHORT_DOMAIN: SHORT, GEO_COUNTRY_HEADER: "CF-IPCountry", CLICK_FLUSH_MS: "200" });
}, 90_000);

afterAll(async () => {
  await app?.stop();
  await disconnectDb();
  await database?.drop();
});

describe("order of choice", () => {
  const routing: LinkRouting = {
    rules: [
      { url: "https://rule-de.example/", languages: ["de"] },
      { url: "https://rule-ref.example/", query: { ref: "*" }, countries: ["FR"] },
    ],
    variants: VARIANTS,
  };
  const targeting = { ios: "https://ios.example/", geo: { NL: "https://nl.example/" } };

  test("first matching rule, then targeting, then a variant, then url (bots)", async () => {
    await routedLink("order", routing, { code: "order", targeting });
    expect((await get("/order", { "user-agent": IPHONE, "accept-language": "de-DE,en;q=0.5" })).location).toBe("https://rule-de.example/");
    expect((await get("/order?ref=x", { "cf-ipcountry": "fr" })).location).toBe("https://rule-ref.example/");
    expect((await get("/order?ref=x", { "cf-ipcountry": "NL" })).location).toBe("https://nl.example/");
    expect((await get("/order", { "user-agent": IPHONE, "accept-language": "en" })).location).toBe("https://ios.example/");
    expect(VARIANTS.map((v) => v.url)).toContain((await get("/order")).location);
    expect((await get("/order", { "user-agent": "curl/8.5.0" })).location).toBe("https://dest.example/order");
  });

  test("lifecycle and password come before every rule", async () => {
    await routedLink("ord-exp", routing, { code: "ord-exp", expiresOn: new Date(Date.now() - 1000) });
    await routedLink("ord-off", routing, { code: "ord-off", active: false });
    await routedLink("ord-pw", routing, { code: "ord-pw", passwordHash: await hashPassword("secret-pass") });
    const de = { "accept-language": "de" };
    expect((await get("/ord-exp", de)).status).toBe(410);
    expect((await get("/ord-off", de)).status).toBe(404);
    const form = await get("/ord-pw", de);
    expect(form.status).toBe(200);
    expect(form.body).toContain('name="password"');
  });
});

test("an edit of a link's routing reaches the redirect at once (the link's change notification)", async () => {
  const link = await routedLink("edited", { rules: [{ url: "https://before.example/", languages: ["de"] }] });
  const de = { "accept-language": "de" };
  expect((await get("/edited", de)).location).toBe("https://before.example/");
  await db().link.update({ where: { id: link.id }, data: { routing: { rules: [{ url: "https://after.example/", languages: ["de"] }] } } });
  await within(5_000, async () => (await get("/edited", de)).location === "https://after.example/");
  await db().link.update({ where: { id: link.id }, data: { routing: { forwardPath: true } } });
  await within(5_000, async () => (await get("/edited/x", de)).location === "https://dest.example/edited/x");
});

describe("A/B variants", () => {
  test("the split over 1200 visitors without a cookie stays within 4.5 binomial sigma of the weights", async () => {
    const link = await routedLink("split", { variants: VARIANTS });
    const n = 1200;
    const counts = new Map<string, number>();
    for (let done = 0; done < n; done += 50) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => get("/split", { "user-agent": `${BROWSER} visitor/${done + i}` })),
      );
      for (const a of answers) {
        expect(a.status).toBe(302);
        expect(a.headers["set-cookie"]?.[0]).toMatch(
          new RegExp(`^lh_v${link.id}=[A-Za-z0-9_-]+; Path=/split; Max-Age=2592000; HttpOnly; SameSite=Lax$`),
        );
        counts.set(a.location!, (counts.get(a.location!) ?? 0) + 1);
      }
    }
    expect([...counts.keys()].sort()).toEqual(VARIANTS.map((v) => v.url));
    for (const v of VARIANTS) {
      const p = v.weight / 100;
      const sigma = Math.sqrt(n * p * (1 - p));
      expect(Math.abs(counts.get(v.url)! - n * p), `${v.url}: ${counts.get(v.url)} of ${n}`).toBeLessThanOrEqual(4.5 * sigma);
    }
  });

  test("a browser with the cookie keeps its variant; a cookie naming a variant that no longer exists is ignored", async () => {
    const link = await routedLink("sticky", { variants: VARIANTS });
    const first = await get("/sticky");
    const cookie = first.headers["set-cookie"]![0].split(";")[0];
    expect(cookie).not.toContain("127.0.0.1");
    for (let i = 0; i < 20; i++) {
      const again = await get("/sticky", { cookie: `other=1; ${cookie}` });
      expect(again.location).toBe(first.location);
      expect(again.headers["set-cookie"]).toBeUndefined();
    }
    // the cookie is by link: another link's variant cookie does not pin this one
    const b = `lh_v${link.id}=${variantId("https://b.example/")}`;
    expect((await get("/sticky", { cookie: b })).location).toBe("https://b.example/");
    const gone = await get("/sticky", { cookie: `lh_v${link.id}=${variantId("https://removed.example/")}` });
    expect(VARIANTS.map((v) => v.url)).toContain(gone.location);
    expect(gone.headers["set-cookie"]?.[0]).toContain(`lh_v${link.id}=`);
  });

  test("bots go to url and get no cookie", async () => {
    await routedLink("botsplit", { variants: VARIANTS });
    for (const ua of ["curl/8.5.0", "Googlebot/2.1 (+http://www.google.com/bot.html)", PREVIEW_AGENTS[0]]) {
      const a = await get("/botsplit", { "user-agent": ua });
      expect(a.location, ua).toBe("https://dest.example/botsplit");
      expect(a.headers["set-cookie"]).toBeUndefined();
    }
  });
});

describe("previews", () => {
  const preview = { title: `Tom & "Jerry" <b>'s</b>`, description: "Cheese & <crackers>", image: "https://img.example/card.png?a=1&b=2" };

  test("link-preview fetchers get the card, escaped; a browser is redirected; the card counts nothing", async () => {
    const link = await routedLink("card", { preview });
    for (const ua of PREVIEW_AGENTS) {
      const a = await get("/card", { "user-agent": ua });
      expect(a.status, ua).toBe(200);
      expect(a.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(a.body).toContain(`<meta property="og:title" content="Tom &#38; &#34;Jerry&#34; &#60;b&#62;&#39;s&#60;/b&#62;">`);
      expect(a.body).toContain(`<meta property="og:description" content="Cheese &#38; &#60;crackers&#62;">`);
      expect(a.body).toContain(`<meta property="og:image" content="https://img.example/card.png?a=1&#38;b=2">`);
      expect(a.body).toContain(`<meta property="og:url" content="http://short.test/card">`);
      expect(a.body).toContain(`<meta name="twitter:card" content="summary_large_image">`);
      expect(a.body).not.toContain("<b>");
      expect(a.body).not.toContain("<crackers>");
    }
    const browser = await get("/card");
    expect(browser).toMatchObject({ status: 302, location: "https://dest.example/card" });
    // the browser's click is stored; the cards before it left no event
    await within(10_000, async () => (await eventsOf(link.id)) >= 1);
    expect(await eventsOf(link.id)).toBe(1);
    expect((await db().link.findUniqueOrThrow({ where: { id: link.id } })).clicks).toBe(1);
  });

  test("a card without an image is a summary card; without a preview, bots are redirected", async () => {
    await routedLink("card2", { preview: { title: "Only a title" } });
    const a = await get("/card2", { "user-agent": "Twitterbot/1.0" });
    expect(a.body).toContain(`<meta name="twitter:card" content="summary">`);
    expect(a.body).not.toContain("og:image");
    await routedLink("nocard", { forwardQuery: true });
    expect(await get("/nocard", { "user-agent": "Twitterbot/1.0" })).toMatchObject({
      status: 302,
      location: "https://dest.example/nocard",
    });
  });
});

describe("forwarding", () => {
  test("the visit's query is merged into the destination, less the QR marker", async () => {
    await routedLink("fq", { forwardQuery: true }, { code: "fq", url: "https://d.example/p?a=1&b=2&a=3#frag" });
    expect((await get("/fq?a=9&z=1&qr=1&y=2")).location).toBe("https://d.example/p?b=2&a=9&z=1&y=2#frag");
    expect((await get("/fq")).location).toBe("https://d.example/p?a=1&b=2&a=3#frag");
    expect((await get("/fq?")).location).toBe("https://d.example/p?a=1&b=2&a=3#frag");
  });

  test("/<code>/<rest> is joined to the destination's path; dot segments are 404; encoded slashes stay inside", async () => {
    await routedLink("fp", { forwardPath: true, forwardQuery: true }, { code: "fp", url: "https://d.example/docs?v=1" });
    expect((await get("/fp/guide/intro?x=2")).location).toBe("https://d.example/docs/guide/intro?v=1&x=2");
    expect((await get("/fp/")).location).toBe("https://d.example/docs?v=1");
    expect((await get("/fp/a%2F..%2Fb")).location).toBe("https://d.example/docs/a%2F..%2Fb?v=1");
    expect((await get("/fp//evil.example/x")).location).toBe("https://d.example/docs/evil.example/x?v=1");
    for (const bad of ["/fp/../x", "/fp/%2e%2e/x", "/fp/a/.%2E/x", "/fp/a/./b"]) expect((await get(bad)).status, bad).toBe(404);
  });

  test("behind a password, the form posts back to the visit's own path and query, and the right password forwards them", async () => {
    await routedLink(
      "fpw",
      { forwardPath: true, forwardQuery: true },
      { code: "fpw", url: "https://d.example/docs", passwordHash: await hashPassword("secret-pass") },
    );
    const form = await get("/fpw/guide?x=1&y=%3Cb%3E");
    expect(form.status).toBe(200);
    expect(form.body).toContain(`action="/fpw/guide?x=1&#38;y=%3Cb%3E"`);
    const token = /name="token" value="([^"]+)"/.exec(form.body)![1];
    const cookie = form.headers["set-cookie"]![0].split(";")[0];
    const right = await request(app.port, SHORT, "/fpw/guide?x=1&y=%3Cb%3E", {
      form: { password: "secret-pass", token },
      headers: { "user-agent": BROWSER, cookie },
    });
    expect(right).toMatchObject({ status: 302, location: "https://d.example/docs/guide?x=1&y=%3Cb%3E" });
    // a link without forwarding keeps posting to its own code
    await createLink(ws.id, { code: "pw-plain", passwordHash: await hashPassword("secret-pass") });
    expect((await get("/pw-plain?x=1")).body).toContain(`action="/pw-plain"`);
  });

  test("without forwardPath, or for an unknown code, a deeper path is the 404 page", async () => {
    await createLink(ws.id, { code: "plain" });
    expect((await get("/plain")).status).toBe(302);
    expect((await get("/plain/x")).status).toBe(404);
    expect((await get("/plain/x", { "user-agent": "curl/8.5.0" })).status).toBe(404);
    expect((await get("/nosuch/x")).status).toBe(404);
    expect((await get("/login")).status).toBe(200); // the app's own paths stay the app's
  });
});

describe("what a click records", () => {
  // The click pipeline of a handler in this process, with a writer that keeps what it is given:
  // the events as lib/clicks hands them to the click store.
  test("destination (before forwarding) and language (first Accept-Language primary subtag)", async () => {
    const events: ClickEvent[] = [];
    const pipeline = new ClickPipeline(
      {
        saltFor: async () => Buffer.alloc(32, 1),
        write: async (batch) => void events.push(...batch.events),
      },
      { geo: () => null },
    );
    process.env.SHORT_DOMAIN = SHORT;
    const { resetConfig } = await import("../../lib/config/index.ts");
    resetConfig();
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const handler = await createShortLinkHandler({ pool, databaseUrl: database.url, clicks: pipeline });
    const server = http.createServer((req, res) => (handler.handles(req) ? handler.handle(req, res) : res.writeHead(418).end()));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const link = await routedLink("rec", {
        forwardQuery: true,
        forwardPath: true,
        rules: [{ url: "https://rule.example/x?k=1", languages: ["de"] }],
      });
      const send = (path: string, headers: Record<string, string>) =>
        request(port, SHORT, path, { headers: { "user-agent": BROWSER, ...headers } });
      expect((await send("/rec/deep?u=1", { "accept-language": "de-CH, en;q=0.8" })).location).toBe("https://rule.example/x/deep?k=1&u=1");
      expect((await send("/rec", { "accept-language": "EN-us" })).location).toBe("https://dest.example/rec");
      expect((await send("/rec", {})).location).toBe("https://dest.example/rec");
      expect((await send("/rec", { "user-agent": "curl/8.5.0", "accept-language": "fr" })).location).toBe("https://dest.example/rec");
      await pipeline.flush();
      expect(events.filter((e) => e.linkId === link.id).map((e) => [e.target, e.destination, e.language, e.bot])).toEqual([
        ["rule", "https://rule.example/x?k=1", "de", false],
        ["destination", "https://dest.example/rec", "en", false],
        ["destination", "https://dest.example/rec", null, false],
        ["destination", "https://dest.example/rec", "fr", true],
      ]);
    } finally {
      await new Promise((r) => server.close(r));
      await handler.close();
      await pool.end();
    }
  });
});
