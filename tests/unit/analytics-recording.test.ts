import { describe, expect, it } from "vitest";
import { describeAgent, isBotAgent } from "../../lib/analytics/ingest/agent.ts";
import { batchEnricher, enrichHit, parseReferrer, type ClickHit } from "../../lib/analytics/ingest/enrich.ts";
import { countryCode, GeoLookup, plainAddress } from "../../lib/analytics/ingest/geo.ts";
import { qrUrl } from "../../lib/analytics/ingest/qr.ts";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { visitorKey } from "../../lib/analytics/ingest/visitor.ts";
import type { Targeting } from "../../lib/redirects/lifecycle.ts";
import { compileRouting, decideDestination } from "../../lib/redirects/decide.ts";
import { visitOf } from "../../lib/redirects/visit.ts";
import { isQrVisit } from "../../lib/redirects/routing.ts";
import { buildMmdb } from "../support/mmdb.ts";

const UA = {
  iphoneSafari:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  ipad: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  androidChrome:
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.6422.113 Mobile Safari/537.36",
  windowsEdge:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36 Edg/125.0.2535.67",
  macFirefox: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:126.0) Gecko/20100101 Firefox/126.0",
  slackbot: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  twitterbot: "Twitterbot/1.0",
  curl: "curl/8.5.0",
};

describe("user agents", () => {
  it("names browser, OS and device type", () => {
    expect(describeAgent(UA.iphoneSafari)).toEqual({ device: "mobile", browser: "Safari", os: "iOS" });
    expect(describeAgent(UA.ipad)).toEqual({ device: "tablet", browser: "Safari", os: "iOS" });
    expect(describeAgent(UA.androidChrome)).toEqual({ device: "mobile", browser: "Chrome", os: "Android" });
    expect(describeAgent(UA.windowsEdge)).toEqual({ device: "desktop", browser: "Edge", os: "Windows" });
    expect(describeAgent(UA.macFirefox)).toEqual({ device: "desktop", browser: "Firefox", os: "macOS" });
    expect(describeAgent(undefined)).toEqual({ device: "other", browser: null, os: null });
    expect(describeAgent(UA.curl).device).toBe("other");
  });
  it("bots, crawlers, preview fetchers and HTTP libraries are bots; browsers and a missing agent are not", () => {
    for (const ua of [UA.slackbot, UA.twitterbot, UA.curl, "python-requests/2.31", "Googlebot/2.1 (+http://www.google.com/bot.html)"])
      expect(isBotAgent(ua), ua).toBe(true);
    for (const ua of [UA.iphoneSafari, UA.androidChrome, UA.windowsEdge, UA.macFirefox, undefined, ""])
      expect(isBotAgent(ua), String(ua)).toBe(false);
  });
});

describe("referrers, places, visitors", () => {
  it("keeps the referrer's host and a bounded URL", () => {
    expect(parseReferrer("https://WWW.Google.com/search?q=a")).toEqual({
      host: "www.google.com",
      url: "https://www.google.com/search?q=a",
    });
    expect(parseReferrer("https://x.test/" + "a".repeat(1000)).url).toHaveLength(500);
    expect(parseReferrer("not a url")).toEqual({ host: null, url: null });
    expect(parseReferrer(undefined)).toEqual({ host: null, url: null });
  });
  it("country codes and addresses are normalised", () => {
    expect(countryCode(" fr ")).toBe("FR");
    expect(countryCode("XX")).toBeNull();
    expect(countryCode("France")).toBeNull();
    expect(plainAddress("::ffff:81.2.69.142")).toBe("81.2.69.142");
    expect(plainAddress("2001:db8::1")).toBe("2001:db8::1");
    expect(plainAddress("unknown")).toBeNull();
  });
  it("the visitor key depends on the day's salt, the address and the agent", () => {
    const a = Buffer.alloc(32, 1);
    const b = Buffer.alloc(32, 2);
    const k = visitorKey(a, "81.2.69.142", UA.macFirefox);
    expect(k).toMatch(/^-?\d+$/);
    expect(visitorKey(a, "81.2.69.142", UA.macFirefox)).toBe(k);
    expect(visitorKey(b, "81.2.69.142", UA.macFirefox)).not.toBe(k);
    expect(visitorKey(a, "81.2.69.143", UA.macFirefox)).not.toBe(k);
    expect(visitorKey(a, "81.2.69.142", UA.windowsEdge)).not.toBe(k);
  });
  it("an enriched event holds no address", () => {
    const hit: ClickHit = {
      at: 0,
      workspaceId: 1,
      linkId: 2,
      domain: "s.test",
      target: "destination",
      address: "::ffff:81.2.69.142",
      userAgent: UA.macFirefox,
      referrer: "https://t.co/x",
      countryHeader: "de",
      bot: false,
      qr: true,
    };
    const e = enrichHit(hit, null, Buffer.alloc(32));
    expect(e).toMatchObject({
      country: "DE",
      city: null,
      referrerHost: "t.co",
      device: "desktop",
      browser: "Firefox",
      os: "macOS",
      qr: true,
    });
    expect(JSON.stringify(e)).not.toContain("81.2.69");
  });
  it("a batch's enricher (which reuses the previous hit's place, referrer and visitor key) gives every hit what enriching it alone gives", () => {
    const geo = new GeoLookup(
      buildMmdb({
        "81.2.69.0/24": { country: { iso_code: "GB" }, city: { names: { en: "London" } } },
        "89.160.20.0/24": { country: { iso_code: "SE" }, city: { names: { en: "Linköping" } } },
      }),
    );
    const day1 = Buffer.alloc(32, 1);
    const day2 = Buffer.alloc(32, 2);
    const addresses = ["81.2.69.142", "::ffff:81.2.69.142", "89.160.20.7", "2001:db8::1", "not an address", undefined];
    const agents = [UA.macFirefox, UA.iphoneSafari, UA.slackbot, undefined];
    const referrers = ["https://t.co/x", "https://T.CO/x", "nonsense", undefined];
    const hits: ClickHit[] = [];
    for (let i = 0; i < 120; i++) {
      hits.push({
        at: i,
        workspaceId: 1,
        linkId: 1 + (i % 2),
        domain: "s.test",
        target: "destination",
        // in pairs (and sometimes across a change of day), so the previous hit's values are reused
        address: addresses[(i >> 1) % addresses.length],
        userAgent: agents[(i >> 2) % agents.length],
        referrer: referrers[(i >> 1) % referrers.length],
        countryHeader: i % 5 === 0 ? "se" : undefined,
        bot: i % 3 === 0,
        qr: i % 4 === 0,
      });
    }
    const saltOf = (i: number) => (i % 7 < 4 ? day1 : day2);
    const enrich = batchEnricher(geo);
    const batch = hits.map((hit, i) => enrich(hit, saltOf(i)));
    expect(batch).toEqual(hits.map((hit, i) => enrichHit(hit, geo, saltOf(i))));
    // nothing reused where it differs: both days' keys, each address and agent
    expect(new Set(batch.map((e) => e.visitor)).size).toBeGreaterThan(20);
    expect(batch[0].visitor).toBe(visitorKey(day1, "81.2.69.142", UA.macFirefox));
    expect(batch.find((e, i) => hits[i].address === "89.160.20.7")?.city).toBe("Linköping");
  });
});

describe("QR marker and targets", () => {
  it("QR codes encode ?qr=1, which the redirect recognises", () => {
    expect(qrUrl("https://s.test/abc")).toBe("https://s.test/abc?qr=1");
    expect(isQrVisit("/abc?qr=1")).toBe(true);
    expect(isQrVisit("/abc?utm=x&qr=1")).toBe(true);
    expect(isQrVisit("/abc")).toBe(false);
    expect(isQrVisit("/abc?qr=0")).toBe(false);
  });
  it("the kind of target a visitor was sent to", () => {
    const link = { url: "https://d.test/", targeting: { ios: "https://ios.test/", geo: { DE: "https://de.test/" } } };
    expect(chooseTarget(link, UA.iphoneSafari, "DE")).toEqual({ url: "https://ios.test/", kind: "ios" });
    expect(chooseTarget(link, UA.androidChrome, "de")).toEqual({ url: "https://de.test/", kind: "geo" });
    expect(chooseTarget(link, UA.macFirefox, "FR")).toEqual({ url: "https://d.test/", kind: "destination" });
  });
});

/** Where targeting alone sends a visitor (decide.ts, the redirect's one decision). */
function chooseTarget(
  link: { url: string; targeting: Targeting | null },
  userAgent: string | undefined,
  countryHeader: string | undefined,
) {
  const routing = compileRouting(link.url, null, link.targeting);
  const visit = visitOf(
    {
      url: "/",
      userAgent,
      acceptLanguage: undefined,
      countryHeader,
      address: undefined,
      bot: false,
      stickyVariant: undefined,
      drawVariant: true,
    },
    routing,
    () => null,
  );
  const { url, kind } = decideDestination(routing, visit, 0);
  return { url, kind };
}
