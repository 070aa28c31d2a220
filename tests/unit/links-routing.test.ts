import { describe, expect, it } from "vitest";
import { sameJson } from "../../lib/links/columns.ts";
import { IMPORT_COLUMNS, toExportRow, toLinkBody, type ExportableLink } from "../../lib/links/csv-rows.ts";
import { applyRouting, canonicalRule, routingFeatures, routingUrls, routingView } from "../../lib/links/routing.ts";
import { featuresRequested } from "../../lib/links/rules.ts";
import { createLinkSchema, updateLinkSchema } from "../../lib/links/schemas.ts";

// Link routing's canonical stored form (lib/links/routing.ts): what a create stores, what a PATCH
// makes of the stored form, and that equal settings written differently compare equal.

const url = "https://example.com/";
const variants = [
  { url: "https://example.com/a", weight: 30 },
  { url: "https://example.com/b", weight: 70 },
];

describe("applyRouting on a create (nothing stored)", () => {
  it("stores nothing when nothing is set: false, null and [] are the same as absent", () => {
    expect(applyRouting(null, {})).toBeNull();
    expect(applyRouting(null, { forwardQuery: false, forwardPath: null, variants: null, rules: [], preview: null })).toBeNull();
  });

  it("keeps only what is set, true flags as true", () => {
    expect(applyRouting(null, { forwardQuery: true, forwardPath: false, variants })).toEqual({ forwardQuery: true, variants });
  });

  it("puts rule conditions in one form: sorted unique lists, sorted query names, the default time zone left out", () => {
    const parsed = createLinkSchema.parse({
      url,
      rules: [
        {
          url: "https://example.com/de",
          countries: ["DE", "AT", "DE"],
          languages: ["DE", "en"],
          query: { b: "1", a: "*" },
          days: [5, 1, 1],
          timeZone: "Etc/UTC",
        },
        { url: "https://example.com/night", hours: [22, 24], timeZone: "Europe/Berlin" },
      ],
    });
    const stored = applyRouting(null, parsed)!;
    expect(stored.rules).toEqual([
      { url: "https://example.com/de", countries: ["AT", "DE"], languages: ["de", "en"], query: { a: "*", b: "1" }, days: [1, 5] },
      { url: "https://example.com/night", hours: [22, 24], timeZone: "Europe/Berlin" },
    ]);
    expect(Object.keys(stored.rules![0])).toEqual(["url", "countries", "languages", "query", "days"]);
  });

  it("keeps the order of rules and variants (first match wins; variants keep their places)", () => {
    const rules = [
      { url: "https://example.com/2", devices: ["mobile" as const] },
      { url: "https://example.com/1", os: ["ios" as const] },
    ];
    const stored = applyRouting(null, { rules, variants: [...variants].reverse() })!;
    expect(stored.rules!.map((r) => r.url)).toEqual(["https://example.com/2", "https://example.com/1"]);
    expect(stored.variants!.map((v) => v.weight)).toEqual([70, 30]);
  });

  it("a preview keeps only its given parts", () => {
    expect(applyRouting(null, { preview: { title: "Hi" } })).toEqual({ preview: { title: "Hi" } });
  });
});

describe("applyRouting on a PATCH", () => {
  const stored = { forwardQuery: true, variants, preview: { title: "T" } };

  it("keeps fields not given, replaces given ones", () => {
    expect(applyRouting(stored, { forwardPath: true })).toEqual({
      forwardQuery: true,
      forwardPath: true,
      variants,
      preview: { title: "T" },
    });
    expect(applyRouting(stored, { preview: { description: "D" } })).toEqual({
      forwardQuery: true,
      variants,
      preview: { description: "D" },
    });
  });

  it("clears with null, with false for the flags, and stores null once nothing is left", () => {
    expect(applyRouting(stored, { forwardQuery: false })).toEqual({ variants, preview: { title: "T" } });
    expect(applyRouting(stored, { forwardQuery: null, variants: null, preview: null })).toBeNull();
  });

  it("an edit that sets what is stored compares equal, whatever the key order (jsonb reorders keys)", () => {
    const fromDb = JSON.parse(
      '{"preview":{"title":"T"},"variants":[{"weight":30,"url":"https://example.com/a"},{"weight":70,"url":"https://example.com/b"}],"forwardQuery":true}',
    );
    expect(sameJson(fromDb, applyRouting(fromDb, { forwardQuery: true, variants }))).toBe(true);
    expect(sameJson(fromDb, applyRouting(fromDb, { variants: [...variants].reverse() }))).toBe(false);
    expect(canonicalRule({ url, countries: ["FR", "DE"] })).toEqual(canonicalRule({ url, countries: ["DE", "FR", "DE"] }));
  });
});

describe("the API's view, features and destinations", () => {
  it("shows every field, unset ones false or null", () => {
    expect(routingView(null)).toEqual({ forwardQuery: false, forwardPath: false, variants: null, rules: null, preview: null });
    expect(routingView({ forwardPath: true, variants })).toEqual({
      forwardQuery: false,
      forwardPath: true,
      variants,
      rules: null,
      preview: null,
    });
  });

  it("asks for RedirectRules (forwardPath, rules), ABTesting (variants), LinkPreviews (preview); clearing and forwardQuery for none", () => {
    expect(routingFeatures({ forwardQuery: true, forwardPath: false, rules: [], variants: null, preview: null })).toEqual([]);
    expect(routingFeatures({ forwardPath: true })).toEqual(["RedirectRules"]);
    expect(routingFeatures({ rules: [{ url, countries: ["DE"] }], variants, preview: { title: "x" } })).toEqual([
      "RedirectRules",
      "ABTesting",
      "LinkPreviews",
    ]);
    expect(featuresRequested({ url, alias: "x", variants })).toEqual(["CustomAliases", "ABTesting"]);
  });

  it("lists every URL of variants, rules and the preview image with its field", () => {
    expect(
      routingUrls({ variants, rules: [{ url: "https://r.test/", os: ["ios"] }], preview: { image: "https://img.test/x.png" } }),
    ).toEqual([
      { field: "variants.0.url", url: "https://example.com/a" },
      { field: "variants.1.url", url: "https://example.com/b" },
      { field: "rules.0.url", url: "https://r.test/" },
      { field: "preview.image", url: "https://img.test/x.png" },
    ]);
  });
});

describe("the routing schemas", () => {
  const bad = (body: Record<string, unknown>) => updateLinkSchema.safeParse(body).success;
  it("refuses what the contract calls validation errors", () => {
    expect(
      bad({
        variants: [
          { url, weight: 50 },
          { url, weight: 40 },
        ],
      }),
    ).toBe(false);
    expect(bad({ variants: [{ url, weight: 100 }] })).toBe(false);
    expect(bad({ rules: Array.from({ length: 21 }, () => ({ url, countries: ["DE"] })) })).toBe(false);
    expect(bad({ rules: [{ url }] })).toBe(false);
    expect(bad({ rules: [{ url, timeZone: "Europe/Berlin" }] })).toBe(false);
    expect(bad({ rules: [{ url, planet: ["mars"] }] })).toBe(false);
    expect(bad({ rules: [{ url, hours: [9, 9] }] })).toBe(false);
    expect(bad({ rules: [{ url, days: [1], timeZone: "Mars/Olympus" }] })).toBe(false);
    expect(bad({ preview: { image: "http://example.com/x.png" } })).toBe(false);
    expect(bad({ preview: {} })).toBe(false);
    expect(
      bad({
        variants: [
          { url: "javascript:alert(1)", weight: 50 },
          { url, weight: 50 },
        ],
      }),
    ).toBe(false);
    expect(bad({ forwardQuery: false, forwardPath: null, variants: null, rules: null, preview: null })).toBe(true);
  });
});

describe("CSV columns", () => {
  it("an exported row imports as the same routing (JSON cells for variants, rules and preview)", () => {
    const routing = applyRouting(null, {
      forwardQuery: true,
      variants,
      rules: [{ url: "https://example.com/de", countries: ["DE"], query: { ref: "*" } }],
      preview: { title: 'Say "hi", folks', image: "https://img.test/a.png" },
    });
    const link: ExportableLink = {
      url,
      code: "abc",
      domain: "",
      title: "",
      notes: null,
      folder: "",
      active: true,
      startsOn: null,
      expiresOn: null,
      maxClicks: null,
      fallbackUrl: null,
      targeting: null,
      tags: [],
      routing,
    };
    const row = toExportRow(link);
    const record = Object.fromEntries(IMPORT_COLUMNS.map((c, i) => [c, String(row[i])]));
    const converted = toLinkBody(record, 1);
    expect("body" in converted).toBe(true);
    const body = createLinkSchema.parse((converted as { body: unknown }).body);
    expect(applyRouting(null, body)).toEqual(routing);
  });

  it("names a cell that is not JSON or not a boolean", () => {
    expect(toLinkBody({ url, variants: "[{oops", forwardPath: "maybe" }, 3)).toEqual({
      row: 3,
      errors: [expect.stringMatching(/^variants: the cell is not JSON/), 'forwardPath: use true or false, not "maybe"'],
    });
  });
});
