import { describe, expect, it } from "vitest";
import { parseLinksPageFilters } from "../../lib/links/views.ts";

describe("Links page filters from the URL", () => {
  it("keeps valid values, normalising the folder as the list does", () => {
    expect(parseLinksPageFilters({ q: "promo", folder: "/marketing/2026/", tag: "Launch" })).toEqual({
      q: "promo",
      folder: "marketing/2026",
      tag: "Launch",
    });
  });

  it("takes the first of repeated parameters", () => {
    expect(parseLinksPageFilters({ q: ["a", "b"], tag: ["x", "y"] })).toMatchObject({ q: "a", tag: "x" });
  });

  it("drops values the list would refuse instead of failing the page", () => {
    expect(parseLinksPageFilters({ q: "a".repeat(201), folder: "a//b", tag: "bad,tag" })).toEqual({ q: "", folder: "", tag: "" });
    expect(parseLinksPageFilters({ q: "nul\u0000", folder: { gt: 0 }, tag: 42 })).toEqual({ q: "", folder: "", tag: "" });
    expect(parseLinksPageFilters({})).toEqual({ q: "", folder: "", tag: "" });
  });
});
