import { describe, expect, it } from "vitest";
import { bodyOf, initialValues } from "../../app/w/[slug]/links/link-values.ts";
import { evenWeights, ruleOf, ruleRowOf, setWeight } from "../../app/w/[slug]/links/routing-values.ts";
import type { LinkDetail } from "../../lib/links/views.ts";
import { pageCard } from "../../lib/links/preview-tags.ts";
import { testVisitor, visitorTestSchema } from "../../lib/redirects/tester.ts";

// The link form's routing parts as pure functions: weights that always sum to 100, rule rows to
// API rules and back, the body an edit sends, the page card read from HTML, and the tester.

const sum = (w: number[]) => w.reduce((s, x) => s + x, 0);

describe("variant weights", () => {
  it("evenWeights shares 100 out as evenly as whole numbers allow", () => {
    expect(evenWeights(2)).toEqual([50, 50]);
    expect(evenWeights(3)).toEqual([34, 33, 33]);
    expect(evenWeights(7)).toEqual([15, 15, 14, 14, 14, 14, 14]);
    for (let n = 2; n <= 10; n++) expect(sum(evenWeights(n))).toBe(100);
  });

  it("setWeight keeps the sum at 100 and every weight at least 1, whatever is typed", () => {
    expect(setWeight([34, 33, 33], 0, 50)).toEqual([50, 25, 25]);
    expect(setWeight([50, 50], 1, 80)).toEqual([20, 80]);
    for (const typed of [-5, 0, 1, 37, 98, 99, 100, 250, NaN]) {
      for (const start of [[50, 50], [34, 33, 33], [10, 20, 30, 40], evenWeights(10)]) {
        const out = setWeight(start, 1, typed);
        expect(sum(out), `${start} ${typed}`).toBe(100);
        expect(Math.min(...out)).toBeGreaterThanOrEqual(1);
      }
    }
    expect(setWeight([34, 33, 33], 2, 100)).toEqual([1, 1, 98]);
  });
});

describe("rule rows", () => {
  it("a rule becomes a row and back unchanged, time conditions kept", () => {
    const rule = {
      url: "https://example.com/de",
      countries: ["AT", "DE"],
      languages: ["de"],
      devices: ["mobile" as const],
      query: { promo: "*", ref: "mail list" },
      days: [1, 2],
      hours: [9, 17] as [number, number],
      timeZone: "Europe/Berlin",
    };
    expect(ruleOf(ruleRowOf(rule))).toEqual(rule);
  });

  it("a row as typed: lists split on commas and spaces, case fixed, empty conditions left out", () => {
    const row = {
      ...ruleRowOf({ url: "x", countries: ["DE"] }),
      url: " https://example.com/x ",
      countries: "de,  at",
      languages: "FR",
      query: "a=1&b",
    };
    expect(ruleOf(row)).toEqual({ url: "https://example.com/x", countries: ["DE", "AT"], languages: ["fr"], query: { a: "1", b: "*" } });
  });
});

describe("the body of an edit", () => {
  const link = {
    url: "https://example.com/",
    domain: "s.test",
    code: "abc",
    title: "",
    notes: null,
    folder: "",
    active: true,
    startsOn: null,
    expiresOn: null,
    maxClicks: null,
    fallbackUrl: null,
    targeting: null,
    forwardQuery: true,
    forwardPath: false,
    variants: [
      { url: "https://example.com/a", weight: 60 },
      { url: "https://example.com/b", weight: 40 },
    ],
    rules: [{ url: "https://example.com/de", countries: ["DE"] }],
    preview: { title: "Card" },
  } as unknown as LinkDetail;

  it("sends nothing of the routing when nothing changed", () => {
    const start = initialValues(link, "s.test", "");
    expect(bodyOf(start, start, true, false).body).toEqual({});
  });

  it("sends only the changed routing field; unchecking and emptying clear with null", () => {
    const start = initialValues(link, "s.test", "");
    const v = {
      ...start,
      routing: { ...start.routing, forwardQuery: false, rules: [], preview: { title: "", description: "", image: "" } },
    };
    expect(bodyOf(v, start, true, false).body).toEqual({ forwardQuery: null, rules: null, preview: null });
  });
});

describe("pageCard", () => {
  it("prefers og: tags, then twitter:, then <title> and description; the image made absolute and https only", () => {
    const html = `<html><head><title> Plain &amp; simple </title><meta name="twitter:title" content="Tw">
      <meta property="og:title" content="OG &quot;title&quot;"><meta name="description" content="Desc">
      <meta property="og:image" content="/img/card.png"></head><body><meta property="og:description" content="body"></body></html>`;
    expect(pageCard(html, "https://site.example/a/b")).toEqual({
      title: 'OG "title"',
      description: "Desc",
      image: "https://site.example/img/card.png",
    });
    expect(pageCard("<title>Only</title><meta name=twitter:image content=http://x.example/i.png>", "https://s.example/")).toEqual({
      title: "Only",
    });
    expect(pageCard("<p>nothing</p>", "https://s.example/")).toEqual({});
  });
});

describe("testVisitor", () => {
  const input = (visitor: Record<string, unknown>) =>
    visitorTestSchema.parse({
      url: "https://example.com/",
      targeting: { geo: { FR: "https://example.com/fr" } },
      rules: [
        { url: "https://example.com/de", countries: ["DE"] },
        { url: "https://example.com/mail", query: { ref: "mail" } },
        { url: "https://example.com/office", hours: [9, 17] },
      ],
      variants: null,
      visitor: { country: "", language: "", device: "desktop", os: "windows", query: "", ...visitor },
    });

  it("answers with decide.ts: the first matching rule, then targeting, then the destination", () => {
    const night = Date.UTC(2026, 10, 25, 2) / 1000;
    expect(testVisitor(input({ country: "de", query: "ref=mail", at: night }))).toEqual({
      url: "https://example.com/de",
      kind: "rule",
      rule: 0,
    });
    expect(testVisitor(input({ country: "fr", query: "?ref=mail", at: night }))).toMatchObject({
      url: "https://example.com/mail",
      rule: 1,
    });
    expect(testVisitor(input({ at: Date.UTC(2026, 10, 25, 10) / 1000 }))).toMatchObject({ url: "https://example.com/office", rule: 2 });
    expect(testVisitor(input({ country: "FR", at: night }))).toEqual({ url: "https://example.com/fr", kind: "geo" });
    expect(testVisitor(input({ at: night }))).toEqual({ url: "https://example.com/", kind: "destination" });
  });
});
