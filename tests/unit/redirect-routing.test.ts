import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  appTopLevelSegments,
  codeOf,
  isShortDomainHost,
  normalizeHost,
  routeRequest,
  type RoutingContext,
} from "../../lib/redirects/routing.ts";
import { RESERVED_PATHS } from "../../lib/links/short-code.ts";
import { RESERVED_PATHS as EXPORTED } from "../../lib/redirects/http.ts";

const root = path.resolve(import.meta.dirname, "../..");
const domains = new Map([["go.brand.example", 7]]);
const ctx: RoutingContext = {
  shortDomain: "short.test",
  customDomainId: (h) => domains.get(h),
  isAppPath: (s) => RESERVED_PATHS.has(s) || s.startsWith("__"),
};

describe("codeOf", () => {
  it("takes one segment of code characters", () => {
    expect(codeOf("/abc")).toBe("abc");
    expect(codeOf("/aB-_9/")).toBe("aB-_9");
    expect(codeOf("/abc?utm=1")).toBe("abc");
    expect(codeOf("/")).toBeNull();
    expect(codeOf("/a/b")).toBeNull();
    expect(codeOf("/a.png")).toBeNull();
    expect(codeOf("/" + "x".repeat(41))).toBeNull();
  });
});

describe("normalizeHost", () => {
  it("lower-cases and drops a trailing dot", () => {
    expect(normalizeHost("Short.TEST")).toBe("short.test");
    expect(normalizeHost("short.test.")).toBe("short.test");
    expect(normalizeHost("short.test.:8080")).toBe("short.test:8080");
    expect(normalizeHost(undefined)).toBe("");
  });
});

describe("routeRequest", () => {
  it("short domain: codes are links, app paths and other shapes go to Next", () => {
    expect(routeRequest("GET", "short.test", "/abc", ctx)).toEqual({ kind: "link", domainKey: 0, code: "abc" });
    expect(routeRequest("HEAD", "SHORT.test:443", "/abc", ctx)).toEqual({ kind: "link", domainKey: 0, code: "abc" });
    expect(routeRequest("POST", "short.test", "/abc", ctx)).toEqual({ kind: "link", domainKey: 0, code: "abc" });
    expect(routeRequest("GET", "short.test", "/login", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", "short.test", "/__nextjs_original-stack-frame", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", "short.test", "/", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", "short.test", "/w/team", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", "short.test", "/_next/static/x.js", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("DELETE", "short.test", "/abc", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", "short.test", "/abc/a/b", ctx)).toEqual({ kind: "link", domainKey: 0, code: "abc", rest: "a/b" });
    expect(routeRequest("GET", "short.test", "/abc/", ctx)).toEqual({ kind: "link", domainKey: 0, code: "abc" });
  });
  it("a short domain with a port must match with its port", () => {
    const local = { ...ctx, shortDomain: "localhost:3000" };
    expect(routeRequest("GET", "localhost:3000", "/abc", local)).toEqual({ kind: "link", domainKey: 0, code: "abc" });
    expect(routeRequest("GET", "localhost:3001", "/abc", local)).toEqual({ kind: "unknown_host" });
  });
  it("custom domain: every path is answered here", () => {
    expect(routeRequest("GET", "go.brand.example", "/abc", ctx)).toEqual({ kind: "link", domainKey: 7, code: "abc" });
    expect(routeRequest("GET", "Go.Brand.Example:8443", "/login", ctx)).toEqual({ kind: "link", domainKey: 7, code: "login" });
    expect(routeRequest("GET", "go.brand.example", "/", ctx)).toEqual({ kind: "not_found" });
    expect(routeRequest("GET", "go.brand.example", "/x.png", ctx)).toEqual({ kind: "not_found" });
    // deeper paths are the link's (forwardPath decides: lib/redirects/forward.ts)
    expect(routeRequest("GET", "go.brand.example", "/abc/docs/x?y=1", ctx)).toEqual({
      kind: "link",
      domainKey: 7,
      code: "abc",
      rest: "docs/x",
    });
    expect(routeRequest("PUT", "go.brand.example", "/abc", ctx)).toEqual({ kind: "method_not_allowed" });
  });
  it("any other host: code-shaped GET/HEAD paths get the lean 404, the app keeps the rest", () => {
    expect(routeRequest("GET", "127.0.0.1:3000", "/abc", ctx)).toEqual({ kind: "unknown_host" });
    expect(routeRequest("GET", "unknown.example", "/abc", ctx)).toEqual({ kind: "unknown_host" });
    expect(routeRequest("GET", "127.0.0.1:3000", "/login", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", "127.0.0.1:3000", "/", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("POST", "127.0.0.1:3000", "/abc", ctx)).toEqual({ kind: "next" });
    expect(routeRequest("GET", undefined, "/abc", ctx)).toEqual({ kind: "unknown_host" });
    expect(routeRequest("GET", "127.0.0.1:3000", "/abc/def", ctx)).toEqual({ kind: "next" });
  });
});

describe("reserved paths", () => {
  it("http.ts keeps exporting RESERVED_PATHS (the set of lib/links/short-code.ts)", () => {
    expect(EXPORTED).toBe(RESERVED_PATHS);
  });
  it("every top-level route of app/ is reserved, so aliases cannot shadow the app", () => {
    const missing = [...appTopLevelSegments(path.join(root, "app"))].filter((s) => !RESERVED_PATHS.has(s));
    expect(missing).toEqual([]);
  });
  it("looks through route groups and skips dynamic and private folders", () => {
    const found = appTopLevelSegments(path.join(root, "app"));
    expect(found.has("login")).toBe(true); // app/(auth)/login
    expect(found.has("w")).toBe(true);
    expect([...found].some((s) => s.startsWith("(") || s.startsWith("["))).toBe(false);
  });
});

describe("isShortDomainHost", () => {
  it("the same host, or any port when SHORT_DOMAIN names none", () => {
    expect(isShortDomainHost("short.test", "short.test")).toBe(true);
    expect(isShortDomainHost("short.test:8080", "short.test")).toBe(true);
    expect(isShortDomainHost("short.test:8080", "short.test:9090")).toBe(false);
    expect(isShortDomainHost("other.test", "short.test")).toBe(false);
  });
  it("a loopback SHORT_DOMAIN answers under every loopback name on its port only", () => {
    expect(isShortDomainHost("127.0.0.1:3000", "localhost:3000")).toBe(true);
    expect(isShortDomainHost("[::1]:3000", "localhost:3000")).toBe(true);
    expect(isShortDomainHost("localhost:3000", "127.0.0.1:3000")).toBe(true);
    expect(isShortDomainHost("127.0.0.1:3001", "localhost:3000")).toBe(false);
    expect(isShortDomainHost("127.0.0.1", "localhost:3000")).toBe(false);
    expect(isShortDomainHost("10.0.0.1:3000", "localhost:3000")).toBe(false);
    expect(isShortDomainHost("127.0.0.1:3000", "short.test:3000")).toBe(false);
  });
});
