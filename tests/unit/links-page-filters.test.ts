import { describe, expect, it } from "vitest";
import { pageNumbers } from "../../app/w/[slug]/links/list-view.ts";
import { parseLinksPageFilters, parseLinksPageView } from "../../lib/links/views.ts";

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

describe("Links page sort and page from the URL", () => {
  it("keeps a valid sort, order, page and size", () => {
    expect(parseLinksPageView({ sort: "clicks", order: "asc", page: "3", size: "50" })).toEqual({
      sort: "clicks",
      order: "asc",
      page: 3,
      size: 50,
    });
    expect(parseLinksPageView({ sort: ["lastClick", "clicks"] })).toMatchObject({ sort: "lastClick" });
  });

  it("falls back to newest first, page 1 of 25 for anything else", () => {
    const defaults = { sort: "created", order: "desc", page: 1, size: 25 };
    expect(parseLinksPageView({})).toEqual(defaults);
    expect(parseLinksPageView({ sort: "title", order: "up", page: "0", size: "30" })).toEqual(defaults);
    expect(parseLinksPageView({ page: "99999999", size: { a: 1 } })).toEqual(defaults);
    expect(parseLinksPageView({ page: "1e3", size: "-25" })).toEqual(defaults);
  });
});

describe("the pager's page numbers", () => {
  it("shows the first, the last and two either side of the current, with gaps", () => {
    expect(pageNumbers(1, 1)).toEqual([1]);
    expect(pageNumbers(1, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(pageNumbers(1, 12)).toEqual([1, 2, 3, null, 12]);
    expect(pageNumbers(7, 12)).toEqual([1, null, 5, 6, 7, 8, 9, null, 12]);
    expect(pageNumbers(12, 12)).toEqual([1, null, 10, 11, 12]);
  });
});
