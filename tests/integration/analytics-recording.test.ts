import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { visitorKey } from "../../lib/analytics/ingest/visitor.ts";
import { DAY_MS } from "../../lib/analytics/model.ts";
import { disconnectDb } from "../../lib/db/client.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { buildMmdb } from "../support/mmdb.ts";
import { clicksOf, createLink, createWorkspace, request, within } from "./redirects-helpers.ts";

// Click events recorded by the real server over real HTTP: fields from real User-Agent strings,
// referrers and addresses (a small city database built here, read through GEOIP_DB), bots redirected
// but not counted, QR scans, no address stored, and a graceful shutdown that loses nothing buffered.

const SHORT = "short.test";
export const UA = {
  iphoneSafari:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  androidChrome:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.6422.113 Mobile Safari/537.36",
  windowsEdge:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67",
  macFirefox: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0",
  slackbot: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  twitterbot: "Twitterbot/1.0",
  curl: "curl/8.5.0",
};

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let ws: { id: number };
let sql: pg.Client;
let dir: string;

const visit = (pathname: string, headers: Record<string, string> = {}) => request(app.port, SHORT, pathname, { headers });

type Row = Record<string, unknown>;
async function eventsOf(linkId: number, expected: number): Promise<Row[]> {
  let rows: Row[] = [];
  await within(5000, async () => {
    rows = (await sql.query(`select * from analytics.click_event where link_id = $1 order by at, browser`, [linkId])).rows;
    return rows.length >= expected;
  });
  return rows;
}

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  ws = await createWorkspace();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-geo-"));
  const city = path.join(dir, "city.mmdb");
  fs.writeFileSync(
    city,
    buildMmdb({
      "81.2.69.0/24": { country: { iso_code: "GB" }, city: { names: { en: "London" } } },
      "89.160.20.0/24": { country: { iso_code: "SE" }, city: { names: { en: "Linköping" } } },
      "216.160.83.0/24": { country: { iso_code: "US" }, city: { names: { en: "Milton" } } },
    }),
  );
  app = await startApp(database.url, { SHORT_DOMAIN: SHORT, TRUST_PROXY: "1", GEOIP_DB: city, CLICK_FLUSH_MS: "100" });
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await disconnectDb();
  await database?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("recorded fields", () => {
  test("browsers, systems, devices, referrers and places from real requests; bots flagged", async () => {
    const link = await createLink(ws.id, { code: "fields" });
    const visits: [string, Record<string, string>][] = [
      [UA.iphoneSafari, { "x-forwarded-for": "10.0.0.1, 81.2.69.142", referer: "https://t.co/abc?x=1" }],
      [UA.androidChrome, { "x-forwarded-for": "89.160.20.112", referer: "android-app://com.slack/" }],
      [UA.windowsEdge, { "x-forwarded-for": "216.160.83.56" }],
      [UA.macFirefox, { "x-forwarded-for": "81.2.69.160", referer: "https://www.google.com/search?q=" + "x".repeat(800) }],
      [UA.slackbot, { "x-forwarded-for": "81.2.69.1" }],
      [UA.twitterbot, { "x-forwarded-for": "81.2.69.2" }],
      [UA.curl, { "x-forwarded-for": "192.0.2.1" }],
    ];
    for (const [ua, headers] of visits) {
      const r = await visit("/fields", { "user-agent": ua, ...headers });
      expect(r.status, ua).toBe(302);
      expect(r.location).toBe("https://dest.example/fields");
    }
    const rows = await eventsOf(link.id, visits.length);
    expect(rows).toHaveLength(visits.length);
    const byAgent = (browser: string) => rows.filter((r) => r.browser === browser && !r.bot);
    const pick = (cols: string[], r: Row) => Object.fromEntries(cols.map((c) => [c, r[c]]));
    const cols = ["workspace_id", "domain", "target", "country", "city", "referrer_host", "device", "browser", "os", "bot", "qr"];
    expect(pick(cols, byAgent("Safari")[0])).toEqual({
      workspace_id: ws.id,
      domain: SHORT,
      target: "destination",
      country: "GB",
      city: "London",
      referrer_host: "t.co",
      device: "mobile",
      browser: "Safari",
      os: "iOS",
      bot: false,
      qr: false,
    });
    expect(pick(cols, byAgent("Chrome")[0])).toMatchObject({
      country: "SE",
      city: "Linköping",
      referrer_host: "com.slack",
      device: "mobile",
      browser: "Chrome",
      os: "Android",
      bot: false,
    });
    expect(pick(cols, byAgent("Edge")[0])).toMatchObject({
      country: "US",
      city: "Milton",
      referrer_host: null,
      device: "desktop",
      browser: "Edge",
      os: "Windows",
      bot: false,
    });
    expect(byAgent("Edge")[0].referrer_url).toBeNull();
    const firefox = byAgent("Firefox")[0];
    expect(pick(cols, firefox)).toMatchObject({
      country: "GB",
      referrer_host: "www.google.com",
      device: "desktop",
      browser: "Firefox",
      os: "macOS",
    });
    expect((firefox.referrer_url as string).length).toBe(500);
    const bots = rows.filter((r) => r.bot);
    expect(bots).toHaveLength(3);
    expect(bots.find((r) => r.country === null)).toBeTruthy(); // 192.0.2.1 is in no database
    // the visitor key is a number, never the address: the HMAC of address + User-Agent under the
    // day's salt, a different one for each of these visitors; no column holds an address
    for (const r of rows) expect(r.visitor).toMatch(/^-?\d{1,19}$/);
    expect(new Set(rows.map((r) => r.visitor)).size).toBe(rows.length);
    const safari = byAgent("Safari")[0];
    const day = Math.floor(new Date(safari.at as string).getTime() / DAY_MS);
    const salt = (await sql.query(`select salt from analytics.visitor_salt where day = date '1970-01-01' + $1::int`, [day])).rows[0].salt;
    expect(safari.visitor).toBe(visitorKey(salt, "81.2.69.142", UA.iphoneSafari));
    const text = JSON.stringify(rows);
    for (const ip of ["81.2.69.142", "89.160.20.112", "216.160.83.56", "192.0.2.1", "10.0.0.1"]) expect(text).not.toContain(ip);
    // only the four people count
    await within(3000, async () => (await clicksOf(link.id)).clicks === 4);
    expect(await clicksOf(link.id)).toEqual({ clicks: 4, events: 4 });
  });

  test("the country header (a CDN in front) wins over the database; targeting kind is recorded", async () => {
    const link = await createLink(ws.id, {
      code: "geo",
      targeting: { ios: "https://apps.apple.com/x", geo: { FR: "https://dest.example/fr" } },
    });
    expect((await visit("/geo", { "user-agent": UA.windowsEdge, "x-country": "fr", "x-forwarded-for": "81.2.69.142" })).location).toBe(
      "https://dest.example/fr",
    );
    expect((await visit("/geo", { "user-agent": UA.iphoneSafari, "x-forwarded-for": "81.2.69.142" })).location).toBe(
      "https://apps.apple.com/x",
    );
    const rows = await eventsOf(link.id, 2);
    expect(rows.map((r) => [r.target, r.country, r.city]).sort()).toEqual([
      ["geo", "FR", null],
      ["ios", "GB", "London"],
    ]);
  });

  test("the same address and browser is one visitor key per day; another browser is another", async () => {
    const link = await createLink(ws.id, { code: "uniq" });
    for (const ua of [UA.macFirefox, UA.macFirefox, UA.windowsEdge])
      await visit("/uniq", { "user-agent": ua, "x-forwarded-for": "81.2.69.50" });
    const rows = await eventsOf(link.id, 3);
    expect(new Set(rows.map((r) => r.visitor)).size).toBe(2);
  });

  test("a QR scan (?qr=1) is recorded as such and the marker is not passed on", async () => {
    const link = await createLink(ws.id, { code: "qr", url: "https://dest.example/qr?a=1" });
    const r = await visit("/qr?qr=1", { "user-agent": UA.iphoneSafari });
    expect(r).toMatchObject({ status: 302, location: "https://dest.example/qr?a=1" });
    await visit("/qr", { "user-agent": UA.iphoneSafari });
    const rows = await eventsOf(link.id, 2);
    expect(rows.map((x) => x.qr).sort()).toEqual([false, true]);
  });
});

describe("bots", () => {
  test("bots are redirected but do not count and do not use up maxClicks: 1", async () => {
    const link = await createLink(ws.id, { code: "once", maxClicks: 1 });
    for (const ua of [UA.slackbot, UA.twitterbot, UA.curl]) {
      expect((await visit("/once", { "user-agent": ua })).status, ua).toBe(302);
    }
    expect(await clicksOf(link.id)).toMatchObject({ clicks: 0 });
    expect((await visit("/once", { "user-agent": UA.iphoneSafari })).status).toBe(302);
    expect((await visit("/once", { "user-agent": UA.androidChrome })).status).toBe(410);
    // once the cap is reached, bots see what people see
    expect((await visit("/once", { "user-agent": UA.slackbot })).status).toBe(410);
    const rows = await eventsOf(link.id, 4);
    expect(rows.map((r) => r.bot)).toEqual([true, true, true, false]);
    await within(3000, async () => (await clicksOf(link.id)).events === 1);
    expect(await clicksOf(link.id)).toEqual({ clicks: 1, events: 1 });
  });

  test("HEAD and blocked links record nothing", async () => {
    const link = await createLink(ws.id, { code: "quiet", active: false });
    const live = await createLink(ws.id, { code: "headonly" });
    expect((await visit("/quiet", { "user-agent": UA.iphoneSafari })).status).toBe(404);
    expect((await request(app.port, SHORT, "/headonly", { method: "HEAD", headers: { "user-agent": UA.iphoneSafari } })).status).toBe(302);
    await visit("/headonly", { "user-agent": UA.iphoneSafari }); // a marker that the buffer was flushed
    await eventsOf(live.id, 1);
    const { rows } = await sql.query(
      `select count(*)::int as n, link_id from analytics.click_event where link_id = any($1) group by link_id`,
      [[link.id, live.id]],
    );
    expect(rows).toEqual([{ n: 1, link_id: live.id }]);
  });
});

test("graceful shutdown writes every buffered event", async () => {
  // a second server whose timer never flushes: only the shutdown can write the events
  const other = await startApp(database.url, { SHORT_DOMAIN: SHORT, CLICK_FLUSH_MS: "3600000" });
  try {
    const link = await createLink(ws.id, { code: "shutdown" });
    const n = 40;
    for (let i = 0; i < n; i++) {
      expect(
        (await request(other.port, SHORT, "/shutdown", { headers: { "user-agent": i % 2 ? UA.windowsEdge : UA.slackbot } })).status,
      ).toBe(302);
    }
    const before = await sql.query(`select count(*)::int as n from analytics.click_event where link_id = $1`, [link.id]);
    expect(before.rows[0].n).toBe(0);
    expect(await other.stop("SIGTERM")).toBe(0);
    const after = await sql.query(
      `select count(*)::int as n, count(*) filter (where bot)::int as bots from analytics.click_event where link_id = $1`,
      [link.id],
    );
    expect(after.rows[0]).toEqual({ n, bots: n / 2 });
    expect(await clicksOf(link.id)).toEqual({ clicks: n / 2, events: n / 2 });
  } finally {
    await other.stop();
  }
}, 90_000);
