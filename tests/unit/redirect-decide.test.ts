import { describe, expect, it } from "vitest";
import type { LinkRouting, RedirectRule } from "../../lib/links/routing-schema.ts";
import { compileRouting, decideDestination, variantId, ZoneClock, type Visit } from "../../lib/redirects/decide.ts";
import { applyForwarding, forwardParts, safeRest } from "../../lib/redirects/forward.ts";
import type { Targeting } from "../../lib/redirects/lifecycle.ts";
import { parseRouting } from "../../lib/redirects/stored-routing.ts";
import { stickyCookie, stickyVariantOf } from "../../lib/redirects/sticky.ts";
import { parseVisitQuery } from "../../lib/redirects/visit-query.ts";
import { primaryLanguage, ruleOs, visitOf } from "../../lib/redirects/visit.ts";

// decide.ts (the destination of one visit), forward.ts (forwarding) and the small parsers around
// them, as pure functions: each rule condition alone and combined, the order of choice, time zones.

const URL_ = "https://dest.example/";
// Wednesday 2026-11-25 10:30 UTC
const WED_1030_UTC = Date.UTC(2026, 10, 25, 10, 30);

function visit(over: Partial<Visit> = {}): Visit {
  return {
    country: null,
    headerCountry: null,
    language: null,
    device: "desktop",
    os: "windows",
    query: parseVisitQuery(""),
    bot: false,
    ...over,
  };
}
const rule = (r: Omit<RedirectRule, "url"> & { url?: string }): RedirectRule => ({ url: "https://rule.example/", ...r }) as RedirectRule;
const decide = (routing: LinkRouting | null, v: Visit, now = WED_1030_UTC, targeting: Targeting | null = null, random = () => 0.5) =>
  decideDestination(compileRouting(URL_, routing, targeting), v, now, random);
const matches = (r: Omit<RedirectRule, "url">, v: Visit, now = WED_1030_UTC) => decide({ rules: [rule(r)] }, v, now).kind === "rule";

describe("rule conditions, each alone", () => {
  it("countries", () => {
    expect(matches({ countries: ["DE", "AT"] }, visit({ country: "AT" }))).toBe(true);
    expect(matches({ countries: ["DE"] }, visit({ country: "FR" }))).toBe(false);
    expect(matches({ countries: ["DE"] }, visit({ country: null }))).toBe(false);
  });
  it("languages: the first Accept-Language entry's primary subtag, case-insensitive", () => {
    expect(primaryLanguage("de-CH, en;q=0.8")).toBe("de");
    expect(primaryLanguage("EN_us")).toBe("en");
    expect(primaryLanguage("fr;q=0.9")).toBe("fr");
    expect(primaryLanguage("*")).toBeNull();
    expect(primaryLanguage(undefined)).toBeNull();
    expect(primaryLanguage("")).toBeNull();
    expect(matches({ languages: ["de"] }, visit({ language: "de" }))).toBe(true);
    expect(matches({ languages: ["DE"] }, visit({ language: "de" }))).toBe(true);
    expect(matches({ languages: ["de"] }, visit({ language: "en" }))).toBe(false);
    expect(matches({ languages: ["de"] }, visit({ language: null }))).toBe(false);
  });
  it("devices and os", () => {
    expect(matches({ devices: ["mobile", "tablet"] }, visit({ device: "tablet" }))).toBe(true);
    expect(matches({ devices: ["mobile"] }, visit({ device: "desktop" }))).toBe(false);
    expect(matches({ os: ["ios"] }, visit({ os: "ios" }))).toBe(true);
    expect(matches({ os: ["linux"] }, visit({ os: "windows" }))).toBe(false);
    expect(ruleOs("macOS")).toBe("macos");
    expect(ruleOs("Ubuntu")).toBe("linux");
    expect(ruleOs("Chrome OS")).toBe("other");
    expect(ruleOs(null)).toBe("other");
  });
  it("query: exact value, or * for present with any value", () => {
    const q = (s: string) => visit({ query: parseVisitQuery(s) });
    expect(matches({ query: { ref: "mail" } }, q("/x?ref=mail"))).toBe(true);
    expect(matches({ query: { ref: "mail" } }, q("/x?ref=mail2"))).toBe(false);
    expect(matches({ query: { ref: "mail" } }, q("/x?ref=web&ref=mail"))).toBe(true);
    expect(matches({ query: { ref: "a b" } }, q("/x?ref=a+b"))).toBe(true);
    expect(matches({ query: { ref: "*" } }, q("/x?ref="))).toBe(true);
    expect(matches({ query: { ref: "*" } }, q("/x?ref"))).toBe(true);
    expect(matches({ query: { ref: "*" } }, q("/x?other=1"))).toBe(false);
    expect(matches({ query: { ref: "*" } }, q("/x"))).toBe(false);
    expect(matches({ query: { ref: "*", v: "2" } }, q("/x?ref=a&v=1"))).toBe(false);
  });
  it("after <= now < before", () => {
    const at = WED_1030_UTC / 1000;
    expect(matches({ after: at }, visit())).toBe(true);
    expect(matches({ after: at + 1 }, visit())).toBe(false);
    expect(matches({ before: at + 1 }, visit())).toBe(true);
    expect(matches({ before: at }, visit())).toBe(false);
  });
  it("days and hours, in UTC by default", () => {
    expect(matches({ days: [3] }, visit())).toBe(true); // Wednesday
    expect(matches({ days: [0, 6] }, visit())).toBe(false);
    expect(matches({ hours: [10, 11] }, visit())).toBe(true);
    expect(matches({ hours: [9, 10] }, visit())).toBe(false);
    expect(matches({ hours: [11, 24] }, visit())).toBe(false);
  });
  it("days and hours in the rule's time zone", () => {
    // 10:30 UTC is 19:30 Wednesday in Tokyo and 02:30 Wednesday in Los Angeles (PST)
    expect(matches({ hours: [19, 20], timeZone: "Asia/Tokyo" }, visit())).toBe(true);
    expect(matches({ hours: [2, 3], days: [3], timeZone: "America/Los_Angeles" }, visit())).toBe(true);
    // 23:30 UTC Wednesday is already Thursday in Tokyo
    const late = Date.UTC(2026, 10, 25, 23, 30);
    expect(matches({ days: [4], timeZone: "Asia/Tokyo" }, visit(), late)).toBe(true);
    expect(matches({ days: [3], timeZone: "Asia/Tokyo" }, visit(), late)).toBe(false);
    // a zone with a 45-minute offset: Kathmandu is UTC+5:45, 10:30 UTC is 16:15
    expect(matches({ hours: [16, 17], timeZone: "Asia/Kathmandu" }, visit())).toBe(true);
  });
  it("the zone clock is right across quarter hours and days", () => {
    const clock = new ZoneClock("Europe/Berlin");
    for (let ms = Date.UTC(2026, 2, 28, 20); ms < Date.UTC(2026, 2, 30); ms += 7 * 60_000) {
      const parts = new Intl.DateTimeFormat("en-US", {
        timeZone: "Europe/Berlin",
        weekday: "short",
        hour: "numeric",
        hourCycle: "h23",
      }).formatToParts(ms);
      const hour = Number(parts.find((p) => p.type === "hour")!.value);
      const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(parts.find((p) => p.type === "weekday")!.value);
      expect(clock.at(ms), new Date(ms).toISOString()).toEqual({ day, hour });
    }
  });
});

describe("rule conditions combined and the order of choice", () => {
  it("every given condition must match", () => {
    const r = { countries: ["DE"], devices: ["mobile" as const], query: { ref: "*" } };
    expect(matches(r, visit({ country: "DE", device: "mobile", query: parseVisitQuery("?ref=1") }))).toBe(true);
    expect(matches(r, visit({ country: "DE", device: "mobile" }))).toBe(false);
    expect(matches(r, visit({ country: "DE", device: "desktop", query: parseVisitQuery("?ref=1") }))).toBe(false);
  });
  it("first matching rule, then targeting, then a variant, then url", () => {
    const targeting: Targeting = { ios: "https://ios.example/", geo: { DE: "https://de.example/" } };
    const routing: LinkRouting = {
      rules: [
        rule({ url: "https://first.example/", languages: ["fr"] }),
        rule({ url: "https://second.example/", languages: ["fr", "de"] }),
      ],
      variants: [
        { url: "https://a.example/", weight: 50 },
        { url: "https://b.example/", weight: 50 },
      ],
    };
    expect(decide(routing, visit({ language: "fr", os: "ios" }), WED_1030_UTC, targeting)).toEqual({
      url: "https://first.example/",
      kind: "rule",
      rule: 0,
    });
    expect(decide(routing, visit({ language: "de", os: "ios" }), WED_1030_UTC, targeting)).toEqual({
      url: "https://second.example/",
      kind: "rule",
      rule: 1,
    });
    expect(decide(routing, visit({ os: "ios" }), WED_1030_UTC, targeting)).toEqual({ url: "https://ios.example/", kind: "ios" });
    // targeting.geo answers by the country header only (CONTRACT.md "Redirects")
    expect(decide(routing, visit({ headerCountry: "DE", country: "DE" }), WED_1030_UTC, targeting).kind).toBe("geo");
    expect(decide(routing, visit({ country: "DE" }), WED_1030_UTC, targeting).kind).toBe("variant");
    expect(decide(routing, visit(), WED_1030_UTC, targeting, () => 0.2)).toEqual({
      url: "https://a.example/",
      kind: "variant",
      variant: variantId("https://a.example/"),
    });
    expect(decide(null, visit())).toEqual({ url: URL_, kind: "destination" });
  });
});

describe("variants", () => {
  const routing: LinkRouting = {
    variants: [
      { url: "https://a.example/", weight: 20 },
      { url: "https://b.example/", weight: 30 },
      { url: "https://c.example/", weight: 50 },
    ],
  };
  it("the draw follows the weights", () => {
    expect(decide(routing, visit(), 0, null, () => 0).url).toBe("https://a.example/");
    expect(decide(routing, visit(), 0, null, () => 0.1999).url).toBe("https://a.example/");
    expect(decide(routing, visit(), 0, null, () => 0.2).url).toBe("https://b.example/");
    expect(decide(routing, visit(), 0, null, () => 0.4999).url).toBe("https://b.example/");
    expect(decide(routing, visit(), 0, null, () => 0.5).url).toBe("https://c.example/");
    expect(decide(routing, visit(), 0, null, () => 0.99999).url).toBe("https://c.example/");
  });
  it("a sticky variant is kept; one that no longer exists is ignored; bots go to url; HEAD draws none", () => {
    const b = variantId("https://b.example/");
    expect(decide(routing, visit({ stickyVariant: b }), 0, null, () => 0).url).toBe("https://b.example/");
    expect(decide(routing, visit({ stickyVariant: "gone" }), 0, null, () => 0).url).toBe("https://a.example/");
    expect(decide(routing, visit({ bot: true, stickyVariant: b })).url).toBe(URL_);
    expect(decide(routing, visit({ drawVariant: false })).url).toBe(URL_);
    expect(decide(routing, visit({ drawVariant: false, stickyVariant: b })).url).toBe("https://b.example/");
  });
  it("the cookie: per link, its path, no visitor data, Secure on https", () => {
    const c = stickyCookie(42, "abc", "v1", true);
    expect(c).toBe("lh_v42=v1; Path=/abc; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure");
    expect(stickyCookie(42, "abc", "v1", false)).not.toContain("Secure");
    expect(stickyVariantOf("a=1; lh_v42=v1; b=2", 42)).toBe("v1");
    expect(stickyVariantOf("lh_v42=v1", 42)).toBe("v1");
    expect(stickyVariantOf("xlh_v42=v1", 42)).toBeUndefined();
    expect(stickyVariantOf("lh_v420=v1", 42)).toBeUndefined();
    expect(stickyVariantOf("lh_v42=<script>", 42)).toBeUndefined();
    expect(stickyVariantOf(undefined, 42)).toBeUndefined();
  });
});

describe("forwarding", () => {
  const fwd = (dest: string, requestUrl: string, rest: string | null = null) =>
    applyForwarding(forwardParts(dest), parseVisitQuery(requestUrl), rest);
  it("query: visit parameters replace the destination's of the same name (all of them), others appended in visit order", () => {
    expect(fwd("https://d.example/p?a=1&b=2&a=3", "/c?a=9&z=1&y=2")).toBe("https://d.example/p?b=2&a=9&z=1&y=2");
    expect(fwd("https://d.example/p?keep=1", "/c?x=1&x=2")).toBe("https://d.example/p?keep=1&x=1&x=2");
  });
  it("query: an empty visit query keeps the destination as it is; the QR marker is never passed on", () => {
    expect(fwd("https://d.example/p?a=1#top", "/c")).toBe("https://d.example/p?a=1#top");
    expect(fwd("https://d.example/p?a=1", "/c?")).toBe("https://d.example/p?a=1");
    expect(fwd("https://d.example/p", "/c?qr=1")).toBe("https://d.example/p");
    expect(fwd("https://d.example/p", "/c?qr=1&u=2")).toBe("https://d.example/p?u=2");
    expect(fwd("https://d.example/p", "/c?qr=2")).toBe("https://d.example/p?qr=2");
  });
  it("query: the fragment stays at the end; a # in a visit parameter stays inside it", () => {
    expect(fwd("https://d.example/p#frag", "/c?x=1")).toBe("https://d.example/p?x=1#frag");
    expect(fwd("https://d.example/p", "/c?x=a#b")).toBe("https://d.example/p?x=a%23b");
  });
  it("path: joined with one slash, destination query and fragment kept", () => {
    const path = (dest: string, rest: string) => applyForwarding(forwardParts(dest), null, rest);
    expect(path("https://d.example/docs", "a/b")).toBe("https://d.example/docs/a/b");
    expect(path("https://d.example/docs/", "a/b")).toBe("https://d.example/docs/a/b");
    expect(path("https://d.example", "a")).toBe("https://d.example/a");
    expect(path("https://d.example/docs?v=1#top", "a")).toBe("https://d.example/docs/a?v=1#top");
    expect(path("https://d.example/docs", "//evil.example/x")).toBe("https://d.example/docs/evil.example/x");
    expect(path("https://d.example/docs", "a/")).toBe("https://d.example/docs/a/");
    expect(path("https://u:p@d.example:8443/docs", "a")).toBe("https://u:p@d.example:8443/docs/a");
    expect(forwardParts("https://u:p@d.example:8443/docs").originPrefix).toBe("https://u:p@d.example:8443/");
  });
  it("path: dot segments are refused however written; encoded slashes stay encoded inside the origin", () => {
    const path = (rest: string) => applyForwarding(forwardParts("https://d.example/docs/"), null, rest);
    for (const bad of ["..", "../x", "a/../../x", "%2e%2e/x", ".%2E/x", "a/./b", "a/%2", "a/\t../b", "a b"])
      expect(path(bad), bad).toBeNull();
    expect(path("a%2Fb")).toBe("https://d.example/docs/a%2Fb");
    expect(path("%2F%2Fevil.example")).toBe("https://d.example/docs/%2F%2Fevil.example");
    expect(path("a\\b")).toBe("https://d.example/docs/a%5Cb");
    expect(path("a\\..\\b")).toBe("https://d.example/docs/a%5C..%5Cb"); // one segment, never a dot segment
    expect(path("..x/y")).toBe("https://d.example/docs/..x/y");
    expect(safeRest("a/b")).toBe("a/b");
  });
  it("path and query together", () => {
    expect(fwd("https://d.example/docs?v=1", "/c/x?v=2&u=3", "x")).toBe("https://d.example/docs/x?v=2&u=3");
  });
});

describe("stored routing and the visit", () => {
  it("keeps only the parts that pass the API's schemas", () => {
    expect(parseRouting(null)).toBeNull();
    expect(parseRouting({ forwardQuery: "yes" })).toBeNull();
    expect(
      parseRouting({
        forwardPath: true,
        rules: [
          { url: "javascript:alert(1)", countries: ["DE"] },
          { url: "https://ok.example", countries: ["DE"] },
          { url: "https://x.example" },
        ],
        variants: [{ url: "https://a.example/", weight: 60 }],
        preview: { title: "T" },
      }),
    ).toEqual({ forwardPath: true, rules: [{ url: "https://ok.example/", countries: ["DE"] }], preview: { title: "T" } });
  });
  it("a plain link's visit reads neither the agent, the address nor the query", () => {
    let looked = 0;
    const geo = () => {
      looked++;
      return null;
    };
    const v = visitOf(
      {
        url: "/c?x=1",
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)",
        acceptLanguage: "de",
        countryHeader: undefined,
        address: "1.2.3.4",
        bot: false,
        stickyVariant: undefined,
        drawVariant: true,
      },
      compileRouting(URL_, null, null),
      geo,
    );
    expect(v).toMatchObject({ os: "other", language: "de", country: null });
    expect(v.query.params).toEqual([]);
    expect(looked).toBe(0);
  });
  it("a country rule reads the header first, else the address's country", () => {
    const routing = compileRouting(URL_, { rules: [rule({ countries: ["DE"] })] }, null);
    const base = {
      url: "/c",
      userAgent: undefined,
      acceptLanguage: undefined,
      address: "1.2.3.4",
      bot: false,
      stickyVariant: undefined,
      drawVariant: true,
    };
    const lookup = { lookup: () => ({ country: "DE", city: null }) } as never;
    expect(visitOf({ ...base, countryHeader: "fr" }, routing, () => lookup).country).toBe("FR");
    expect(visitOf({ ...base, countryHeader: undefined }, routing, () => lookup).country).toBe("DE");
  });
});
