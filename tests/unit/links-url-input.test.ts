import { describe, expect, it } from "vitest";
import { httpUrl } from "../../lib/links/schemas.ts";
import { isHttpUrl, withDefaultScheme } from "../../lib/links/url-input.ts";

describe("web addresses as typed in the app's forms", () => {
  it.each([
    ["example.com/spring", "https://example.com/spring"],
    ["  example.com  ", "https://example.com"],
    ["www.example.co.uk/a?b=c#d", "https://www.example.co.uk/a?b=c#d"],
    ["shop.example.org:8443/cart", "https://shop.example.org:8443/cart"],
    ["//example.com/x", "https://example.com/x"],
  ])("completes %j as %j", (typed, full) => {
    expect(withDefaultScheme(typed)).toBe(full);
    expect(isHttpUrl(withDefaultScheme(typed))).toBe(true);
  });

  it.each([
    "https://example.com/x",
    "http://example.com",
    "mailto:someone@example.com",
    "not a url",
    "localhost:3000/x",
    "ftp://example.com",
    "",
  ])("leaves %j as it is", (typed) => {
    expect(withDefaultScheme(typed)).toBe(typed);
  });

  it("the API's schema keeps refusing an address without its scheme", () => {
    expect(httpUrl.safeParse("example.com/spring").success).toBe(false);
    expect(httpUrl.safeParse("https://example.com/spring").success).toBe(true);
  });
});
