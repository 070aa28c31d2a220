import { describe, expect, it } from "vitest";
import {
  blockedAnswer,
  lifecycleState,
  locationUrl,
  parseTargeting,
  type RedirectLink,
  type Targeting,
} from "../../lib/redirects/lifecycle.ts";
import { compileRouting, decideDestination } from "../../lib/redirects/decide.ts";
import { visitOf } from "../../lib/redirects/visit.ts";

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
const pickDestination = (...args: Parameters<typeof chooseTarget>) => chooseTarget(...args).url;

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function link(over: Partial<RedirectLink> = {}): RedirectLink {
  return {
    id: 1,
    workspaceId: 1,
    domainKey: 0,
    url: "https://example.com/",
    active: true,
    startsOn: null,
    expiresOn: null,
    maxClicks: null,
    clicks: 0,
    fallbackUrl: null,
    passwordHash: null,
    targeting: null,
    ...over,
  };
}

describe("lifecycleState", () => {
  it("is open for a plain link", () => {
    expect(lifecycleState(link(), NOW)).toBe("open");
  });
  it("inactive wins over every other state", () => {
    expect(lifecycleState(link({ active: false, expiresOn: NOW - 1, maxClicks: 1, clicks: 5 }), NOW)).toBe("inactive");
  });
  it("not started until startsOn, open from startsOn on", () => {
    expect(lifecycleState(link({ startsOn: NOW + 1 }), NOW)).toBe("not_started");
    expect(lifecycleState(link({ startsOn: NOW }), NOW)).toBe("open");
  });
  it("expired from expiresOn on", () => {
    expect(lifecycleState(link({ expiresOn: NOW + 1 }), NOW)).toBe("open");
    expect(lifecycleState(link({ expiresOn: NOW }), NOW)).toBe("expired");
  });
  it("not started is decided before expiry (a window that has not opened yet)", () => {
    expect(lifecycleState(link({ startsOn: NOW + 10, expiresOn: NOW + 20 }), NOW)).toBe("not_started");
  });
  it("cap reached when clicks reach maxClicks", () => {
    expect(lifecycleState(link({ maxClicks: 3, clicks: 2 }), NOW)).toBe("open");
    expect(lifecycleState(link({ maxClicks: 3, clicks: 3 }), NOW)).toBe("cap_reached");
  });
});

describe("blockedAnswer", () => {
  it("uses the fallback URL when set", () => {
    for (const reason of ["inactive", "not_started", "expired", "cap_reached"] as const) {
      expect(blockedAnswer({ fallbackUrl: "https://fallback.example/" }, reason)).toEqual({
        kind: "fallback",
        url: "https://fallback.example/",
      });
    }
  });
  it("answers 404 for inactive and not started, 410 for expired and cap reached", () => {
    expect(blockedAnswer({ fallbackUrl: null }, "inactive")).toEqual({ kind: "page", status: 404, reason: "inactive" });
    expect(blockedAnswer({ fallbackUrl: null }, "not_started")).toEqual({ kind: "page", status: 404, reason: "not_started" });
    expect(blockedAnswer({ fallbackUrl: null }, "expired")).toEqual({ kind: "page", status: 410, reason: "expired" });
    expect(blockedAnswer({ fallbackUrl: null }, "cap_reached")).toEqual({ kind: "page", status: 410, reason: "cap_reached" });
  });
});

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPAD =
  "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/119.0 Mobile/15E148 Safari/604.1";
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36";
const DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

describe("targeting", () => {
  const targeted = link({
    url: "https://dest.example/",
    targeting: { ios: "https://apps.apple.com/x", android: "https://play.google.com/x", geo: { DE: "https://dest.example/de" } },
  });
  it("detects devices by User-Agent", () => {
    expect(pickDestination(targeted, IPHONE, undefined)).toBe("https://apps.apple.com/x");
    expect(pickDestination(targeted, IPAD, undefined)).toBe("https://apps.apple.com/x");
    expect(pickDestination(targeted, ANDROID, undefined)).toBe("https://play.google.com/x");
    expect(pickDestination(targeted, DESKTOP, undefined)).toBe("https://dest.example/");
  });
  it("sends devices to their URL, device before country", () => {
    expect(pickDestination(targeted, IPHONE, "DE")).toBe("https://apps.apple.com/x");
    expect(pickDestination(targeted, ANDROID, undefined)).toBe("https://play.google.com/x");
  });
  it("sends a country to its URL, case-insensitively", () => {
    expect(pickDestination(targeted, DESKTOP, "DE")).toBe("https://dest.example/de");
    expect(pickDestination(targeted, DESKTOP, " de ")).toBe("https://dest.example/de");
  });
  it("otherwise the destination", () => {
    expect(pickDestination(targeted, DESKTOP, "FR")).toBe("https://dest.example/");
    expect(pickDestination(targeted, undefined, undefined)).toBe("https://dest.example/");
    expect(pickDestination(link({ targeting: { geo: { US: "https://us.example/" } } }), IPHONE, undefined)).toBe("https://example.com/");
  });
  it("keeps only well-formed targeting entries", () => {
    expect(parseTargeting(null)).toBeNull();
    expect(parseTargeting([])).toBeNull();
    expect(parseTargeting({ ios: "javascript:alert(1)", geo: { USA: "https://x.example/", de: "https://d.example" } })).toEqual({
      geo: { DE: "https://d.example/" },
    });
    expect(parseTargeting({ android: "https://p.example/a b" })).toEqual({ android: "https://p.example/a%20b" });
  });
});

describe("locationUrl", () => {
  it("normalises to a header-safe absolute URL", () => {
    expect(locationUrl("https://bücher.example/straße?q=ä")).toBe("https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4");
    expect(locationUrl("ftp://x.example/")).toBeNull();
    expect(locationUrl("not a url")).toBeNull();
    expect(locationUrl(null)).toBeNull();
  });
});

import { withDenylist } from "../../lib/redirects/denylist.ts";

describe("a destination denylisted after the link was saved", () => {
  it("blocks the link (403 page, never the fallback) when any destination's host or parent is denylisted", () => {
    const list = ["evil.test"];
    expect(withDenylist(link({ url: "https://a.example/" }), list)?.denied).toBeUndefined();
    for (const over of [
      { url: "https://www.evil.test/x" },
      { fallbackUrl: "https://evil.test/fb" },
      { targeting: { geo: { DE: "https://evil.test/de" } } },
      { targeting: { ios: "https://EVIL.test./i" } },
    ]) {
      const l = withDenylist(link({ fallbackUrl: "https://fine.example/fb", ...over }), list)!;
      expect(l.denied, JSON.stringify(over)).toBe(true);
      expect(lifecycleState(l, Date.now())).toBe("denied");
      expect(blockedAnswer(l, "denied")).toEqual({ kind: "page", status: 403, reason: "denied" });
    }
    // An inactive link still says inactive; no denylist changes nothing.
    expect(lifecycleState(withDenylist(link({ url: "https://evil.test/", active: false }), list)!, Date.now())).toBe("inactive");
    expect(withDenylist(link({ url: "https://evil.test/" }), [])?.denied).toBeUndefined();
    expect(withDenylist(null, list)).toBeNull();
  });
});
