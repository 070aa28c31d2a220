import { beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../lib/config/index.ts";
import { safeNextPath } from "../../lib/auth/next-path.ts";
import { pagePathOf } from "../../lib/auth/page-path.ts";

beforeAll(() => {
  process.env.APP_URL = "https://links.example.com";
  resetConfig();
});

describe("where to go after signing in", () => {
  it("keeps paths of the app, with their query and fragment", () => {
    expect(safeNextPath("/w/acme/links")).toBe("/w/acme/links");
    expect(safeNextPath("/w/acme/links?q=sale&size=20#top")).toBe("/w/acme/links?q=sale&size=20#top");
    expect(safeNextPath("/invite/abc_DEF-123")).toBe("/invite/abc_DEF-123");
    expect(safeNextPath("/w/acme/links?q=a%2Fb")).toBe("/w/acme/links?q=a%2Fb");
  });

  it.each([
    "//evil.example/x",
    "/\\evil.example/x",
    "\\\\evil.example",
    "/%5Cevil.example/x",
    "/%255Cevil.example/x",
    "/%2F/evil.example",
    "%2F%2Fevil.example",
    "/\t/evil.example",
    "/%09/evil.example",
    "/\n/evil.example",
    "/\u0000x",
    "https://evil.example/x",
    "https://links.example.com/w/acme",
    "javascript:alert(1)",
    "evil.example",
    "",
    "/%E0%A4%A",
    // Normalising these (dot segments) gives `//evil.example`, which a browser reads as another site.
    "/.//evil.example",
    "/./\/evil.example",
    "/w/..//evil.example",
    "/w/../..//evil.example/x?y=1",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/a/%2e%2e//evil.example",
    "/.//%2Fevil.example",
    `/${"a".repeat(3000)}`,
  ])("refuses %j", (value) => {
    expect(safeNextPath(value)).toBe("/");
  });

  it("refuses what is not a string, and returns the fallback given", () => {
    expect(safeNextPath(undefined)).toBe("/");
    expect(safeNextPath(["/a", "/b"])).toBe("/");
    expect(safeNextPath("//evil.example", null)).toBeNull();
    expect(safeNextPath("//evil.example", "/home")).toBe("/home");
  });

  it("answers the path as the URL parser reads it (dot segments resolved on this origin)", () => {
    expect(safeNextPath("/w/../w/acme")).toBe("/w/acme");
    expect(safeNextPath("/../../evil.example")).toBe("/evil.example");
  });
});

describe("the page a signed-out visitor asked for (server.ts stamps it for the login redirect)", () => {
  it("is the request's path and query, without Next's _rsc parameter", () => {
    expect(pagePathOf("/w/acme/analytics?country=DE&range=7d")).toBe("/w/acme/analytics?country=DE&range=7d");
    expect(pagePathOf("/w/acme/links/4?_rsc=1x2y3")).toBe("/w/acme/links/4");
    expect(pagePathOf("/w/acme/analytics?country=DE&_rsc=abc")).toBe("/w/acme/analytics?country=DE");
    expect(pagePathOf("/w/acme/settings/api-keys")).toBe("/w/acme/settings/api-keys");
  });

  it("goes through safeNextPath like any other next: a crafted request target is not followed", () => {
    expect(safeNextPath(pagePathOf("/w/acme/analytics?country=DE"))).toBe("/w/acme/analytics?country=DE");
    expect(safeNextPath(pagePathOf("//evil.example/w/acme"), "/w/acme")).toBe("/w/acme");
    expect(safeNextPath(pagePathOf("/\\evil.example?_rsc=1"), "/w/acme")).toBe("/w/acme");
  });
});
