import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HSTS_MAX_AGE_SECONDS } from "../../lib/http/security-headers.ts";
import { call, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// Security headers over real HTTP with an https APP_URL (behind a TLS-terminating proxy): every app
// page forbids framing and sniffing and pins https; short-link redirects stay lean.
// (Framing itself is tried in a real browser: tests/e2e/security-app.spec.ts.)

const HOST = "links.example.test";
let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest({ env: { APP_URL: `https://${HOST}` } });
});
afterAll(async () => {
  await env?.stop();
});

describe("security headers", () => {
  it("app pages and API answers carry the framing, sniffing, referrer and HSTS headers", async () => {
    for (const path of ["/login", "/signup", "/docs/api", "/w/nope/settings/api-keys", "/api/v1/links"]) {
      const a = await call(env.app, "GET", path, { headers: { host: HOST } });
      expect(a.status, path).toBeLessThan(500);
      expect(a.headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
      expect(a.headers["x-frame-options"], path).toBe("DENY");
      expect(a.headers["x-content-type-options"], path).toBe("nosniff");
      expect(a.headers["referrer-policy"], path).toBe("same-origin");
      expect(a.headers["strict-transport-security"], path).toBe(`max-age=${HSTS_MAX_AGE_SECONDS}`);
    }
    // The legitimate page still renders.
    const login = await call(env.app, "GET", "/login", { headers: { host: HOST } });
    expect(login.status).toBe(200);
    expect(login.text).toContain("Sign in");
  });

  it("a short-link redirect stays a bare 302", async () => {
    const { key } = await makeWorkspace("team");
    const created = await call(env.app, "POST", "/api/v1/links", {
      key,
      json: { url: "https://example.com/lean" },
      headers: { host: HOST },
    });
    expect(created.status, created.text).toBe(201);
    const hop = await call(env.app, "GET", `/${created.body.code}`, { headers: { host: HOST } });
    expect(hop.status).toBe(302);
    expect(hop.headers.location).toBe("https://example.com/lean");
    for (const h of ["content-security-policy", "x-frame-options", "referrer-policy", "strict-transport-security"])
      expect(hop.headers[h], h).toBeUndefined();
    expect(Object.keys(hop.headers).sort()).toEqual(["cache-control", "connection", "content-length", "date", "keep-alive", "location"]);
  });
});
