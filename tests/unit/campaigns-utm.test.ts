import { describe, expect, it } from "vitest";
import { encodeQueryValue, mergeUtm, utmOf, utmSchema } from "../../lib/links/utm.ts";

describe("mergeUtm", () => {
  it("adds the UTM parameters to a URL without a query, in the fixed order", () => {
    expect(mergeUtm("https://example.com/landing", { campaign: "spring", source: "newsletter", medium: "email" })).toBe(
      "https://example.com/landing?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
    );
  });
  it("appends to an existing query and keeps its parameters byte for byte", () => {
    expect(mergeUtm("https://example.com/p?b=2&a=x+y&empty=&flag", { source: "ad" })).toBe(
      "https://example.com/p?b=2&a=x+y&empty=&flag&utm_source=ad",
    );
  });
  it("replaces a parameter of the same name in place and drops its later copies", () => {
    expect(mergeUtm("https://example.com/?utm_source=old&x=1&utm_source=older&utm_medium=web", { source: "new" })).toBe(
      "https://example.com/?utm_source=new&x=1&utm_medium=web",
    );
  });
  it("recognises an encoded parameter name as the same parameter", () => {
    expect(mergeUtm("https://example.com/?utm%5Fsource=old", { source: "new" })).toBe("https://example.com/?utm_source=new");
  });
  it("keeps the fragment after the query", () => {
    expect(mergeUtm("https://example.com/docs#install", { source: "x" })).toBe("https://example.com/docs?utm_source=x#install");
    expect(mergeUtm("https://example.com/docs?a=1#top?not=query", { medium: "y" })).toBe(
      "https://example.com/docs?a=1&utm_medium=y#top?not=query",
    );
  });
  it("percent-encodes values: spaces, &, =, #, + and non-ASCII", () => {
    const url = mergeUtm("https://example.com/", { campaign: "Spring sale & more=50% #1+", content: "café" });
    expect(url).toBe("https://example.com/?utm_campaign=Spring%20sale%20%26%20more%3D50%25%20%231%2B&utm_content=caf%C3%A9");
    expect(new URL(url).searchParams.get("utm_campaign")).toBe("Spring sale & more=50% #1+");
    expect(utmOf(url)).toEqual({ campaign: "Spring sale & more=50% #1+", content: "café" });
  });
  it("removes a parameter given as an empty value, and the ? when nothing is left", () => {
    expect(mergeUtm("https://example.com/?utm_source=a&utm_medium=b", { source: "" })).toBe("https://example.com/?utm_medium=b");
    expect(mergeUtm("https://example.com/?utm_source=a#f", { source: "" })).toBe("https://example.com/#f");
  });
  it("leaves the URL as it is when no UTM value is given", () => {
    expect(mergeUtm("https://example.com/?a=1", {})).toBe("https://example.com/?a=1");
    expect(mergeUtm("https://example.com/?a=1", undefined)).toBe("https://example.com/?a=1");
  });
  it("handles a bare ? and empty pairs", () => {
    expect(mergeUtm("https://example.com/?", { term: "t" })).toBe("https://example.com/?utm_term=t");
    expect(mergeUtm("https://example.com/?a=1&&b=2", { term: "t" })).toBe("https://example.com/?a=1&b=2&utm_term=t");
  });
  it("encodes the characters encodeURIComponent leaves alone (!'()*)", () => {
    expect(encodeQueryValue("a!b'c(d)e*")).toBe("a%21b%27c%28d%29e%2A");
  });
});

describe("utmSchema", () => {
  it("trims values and refuses unknown names and long values", () => {
    expect(utmSchema.parse({ source: " x " })).toEqual({ source: "x" });
    expect(utmSchema.safeParse({ id: "x" }).success).toBe(false);
    expect(utmSchema.safeParse({ source: "x".repeat(201) }).success).toBe(false);
  });
});
