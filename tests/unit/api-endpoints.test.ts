import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_ENDPOINTS, UNKNOWN_API_PATH } from "../../lib/api/endpoints.ts";
import { acceptedEncoding, matchApiLane } from "../../lib/api/lane.ts";
import { apiRouteLabel } from "../../lib/api/metrics.ts";
import { API_PATHS } from "../../lib/api/paths.ts";

// THE table of /api/v1 endpoints (lib/api/endpoints.ts) is served through two doors: Next.js (the
// route files under app/api/v1) and server.ts's lane (lib/api/lane.ts). Both must serve the same
// functions, and the lane must pick the row Next would.

const ROOT = path.resolve(import.meta.dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

function routeFiles(dir = path.join(ROOT, "app/api/v1")): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? routeFiles(p) : e.name === "route.ts" ? [p] : [];
  });
}

describe("the /api/v1 route files", () => {
  const files = routeFiles();

  it("are one per row of the table, plus the catch-all", () => {
    const paths = files.map((f) => "/" + path.relative(path.join(ROOT, "app"), path.dirname(f)).split(path.sep).join("/"));
    expect(paths.sort()).toEqual([...Object.keys(API_ENDPOINTS), "/api/v1/[[...path]]"].sort());
  });

  it("export exactly their row's handlers, so Next and the lane serve the same functions", async () => {
    for (const file of files) {
      const route = "/" + path.relative(path.join(ROOT, "app"), path.dirname(file)).split(path.sep).join("/");
      const row = route === "/api/v1/[[...path]]" ? UNKNOWN_API_PATH : API_ENDPOINTS[route as keyof typeof API_ENDPOINTS];
      const mod = (await import(file)) as Record<string, unknown>;
      for (const m of METHODS) expect(mod[m], `${route} ${m}`).toBe((row as Record<string, unknown>)[m]);
    }
  });
});

describe("matchApiLane", () => {
  const handler = (row: keyof typeof API_ENDPOINTS, m: (typeof METHODS)[number]) => (API_ENDPOINTS[row] as Record<string, unknown>)[m];

  it("takes a static segment before a dynamic one, as Next does", () => {
    expect(matchApiLane("POST", "/api/v1/links/bulk")).toEqual({ handler: handler("/api/v1/links/bulk", "POST"), params: {} });
    expect(matchApiLane("GET", "/api/v1/links/export?tag=a")).toEqual({ handler: handler("/api/v1/links/export", "GET"), params: {} });
    expect(matchApiLane("GET", "/api/v1/links/abc")).toEqual({ handler: handler("/api/v1/links/[code]", "GET"), params: { code: "abc" } });
  });

  it("gives the dynamic segments as params and ignores the query", () => {
    expect(matchApiLane("POST", "/api/v1/domains/go.example.com/verify?x=1")).toEqual({
      handler: handler("/api/v1/domains/[host]/verify", "POST"),
      params: { host: "go.example.com" },
    });
    expect(matchApiLane("PATCH", "/api/v1/tags/12")).toEqual({ handler: handler("/api/v1/tags/[id]", "PATCH"), params: { id: "12" } });
  });

  it("answers unsupported methods from the row and paths no row has with the catch-all's handler", () => {
    expect(matchApiLane("PUT", "/api/v1/links")?.handler).toBe(handler("/api/v1/links", "PUT"));
    expect(matchApiLane("GET", "/api/v1")?.handler).toBe(UNKNOWN_API_PATH.GET);
    expect(matchApiLane("DELETE", "/api/v1/nothing/here/at/all")?.handler).toBe(UNKNOWN_API_PATH.DELETE);
  });

  it("leaves HEAD, OPTIONS, escaped paths and a method a row leaves out to Next", () => {
    expect(matchApiLane("HEAD", "/api/v1/links")).toBeNull();
    expect(matchApiLane("OPTIONS", "/api/v1/links")).toBeNull();
    expect(matchApiLane("GET", "/api/v1/links/%61bc")).toBeNull();
    expect(matchApiLane("GET", "/api/v1/link%73")).toBeNull();
    expect(matchApiLane("POST", "/api/v1/openapi.json")).toBeNull();
    expect(matchApiLane(undefined, "/api/v1/links")).toBeNull();
  });
});

describe("acceptedEncoding", () => {
  it("prefers gzip, then deflate, honouring q=0 and *", () => {
    expect(acceptedEncoding("gzip, deflate, br")).toBe("gzip");
    expect(acceptedEncoding("deflate")).toBe("deflate");
    expect(acceptedEncoding("gzip;q=0, deflate;q=0.5")).toBe("deflate");
    expect(acceptedEncoding("GZIP ; q=1.0")).toBe("gzip");
    expect(acceptedEncoding("*")).toBe("gzip");
    expect(acceptedEncoding("*, gzip;q=0")).toBe("deflate");
    expect(acceptedEncoding("br, identity")).toBeNull();
    expect(acceptedEncoding(undefined)).toBeNull();
    expect(acceptedEncoding("")).toBeNull();
  });
});

describe("the request metrics' route label", () => {
  it('names every endpoint path by its pattern, never one series per code, and anything else "other"', () => {
    for (const path of API_PATHS) {
      const sample = path.replace(/\[\w+\]/g, "abc123");
      expect(apiRouteLabel(sample), path).toBe(path.replace(/\[(\w+)\]/g, "{$1}"));
    }
    expect(apiRouteLabel("/api/v1/links/bulk")).toBe("/api/v1/links/bulk");
    expect(apiRouteLabel("/api/v1/domains/go.example.com/verify")).toBe("/api/v1/domains/{host}/verify");
    expect(apiRouteLabel("/api/v1/openapiXjson")).toBe("other");
    expect(apiRouteLabel("/api/v1/links/a/b")).toBe("other");
  });
});
