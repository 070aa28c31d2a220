import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { getRequestMeta } from "next/dist/server/request-meta.js";
import { describe, expect, it } from "vitest";
import {
  handOverActionBody,
  isCrossSiteAction,
  isJsonServerAction,
  jsonNestingDepth,
  readActionBody,
} from "../../lib/http/action-guard.ts";
import { earlyAnswer, isValidHostHeader } from "../../lib/http/request-guard.ts";
import { parseIdParam } from "../../lib/http/params.ts";

describe("server action bodies", () => {
  it("measure nesting outside strings, so brackets in text neither count nor hide depth", () => {
    expect(jsonNestingDepth('["acme",{"id":3}]')).toBe(2);
    expect(jsonNestingDepth('["[[[[[[", "\\"[[[["]')).toBe(1);
    expect(jsonNestingDepth('["]]]]", [["]]]", [[1]]]]]')).toBe(5);
    expect(jsonNestingDepth("[".repeat(50_000) + "]".repeat(50_000))).toBe(50_000);
  });
  it("only fetch-style (non-multipart) action posts are read first", () => {
    expect(isJsonServerAction({ method: "POST", headers: { "next-action": "abc", "content-type": "text/plain;charset=UTF-8" } })).toBe(
      true,
    );
    expect(
      isJsonServerAction({ method: "POST", headers: { "next-action": "abc", "content-type": "multipart/form-data; boundary=x" } }),
    ).toBe(false);
    expect(isJsonServerAction({ method: "POST", headers: {} })).toBe(false);
  });
  it("are handed to Next as the bytes both of its readers take: forwarding (new Uint8Array) and the local stream", async () => {
    const text = JSON.stringify(["acme", { email: "zoë@example.test", role: "member" }]);
    // As server.ts does it: read the request, hand over what was read.
    const req = Readable.from([Buffer.from(text.slice(0, 20)), Buffer.from(text.slice(20))]) as unknown as IncomingMessage;
    const body = await readActionBody(req);
    handOverActionBody(req, body!);
    // What Next 16's action handler does with it (server/app-render/action-handler.js).
    const stashed = getRequestMeta(req as never, "actionBody");
    expect(Buffer.from(new Uint8Array(stashed as never)).toString("utf8")).toBe(text);
    const chunks: Buffer[] = [];
    for await (const c of Readable.from(stashed as never)) chunks.push(Buffer.from(c as Buffer));
    expect(Buffer.concat(chunks).toString("utf8")).toBe(text);
    // An empty body is still a body handed over (Next would otherwise read the consumed stream).
    handOverActionBody(req, Buffer.alloc(0));
    expect(getRequestMeta(req as never, "actionBody")).toBeTruthy();
  });
});

describe("server actions from another site", () => {
  const action = (headers: Record<string, string | string[]>, method = "POST") =>
    isCrossSiteAction({ method, url: "/w/acme", headers: { "next-action": "abc", ...headers } });
  it("are those whose Origin does not name the host they were sent to, as Next decides", () => {
    for (const origin of ["https://evil.example", "http://localhost:3001", "null", "garbage", "", "file:///x"])
      expect(action({ host: "localhost:3000", origin }), origin).toBe(true);
    expect(action({ host: "localhost:3000", origin: "http://localhost:3000" })).toBe(false);
    expect(action({ host: "localhost:3000", origin: "https://localhost:3000" })).toBe(false); // Next compares hosts only
    // behind a proxy: X-Forwarded-Host (its first entry) is the host Next compares with
    expect(action({ host: "app:3000", "x-forwarded-host": "links.example, proxy.internal", origin: "https://links.example" })).toBe(false);
    expect(action({ host: "links.example", "x-forwarded-host": "other.example", origin: "https://links.example" })).toBe(true);
  });
  it("need a Next-Action header on a POST; without an Origin (not a browser's) they pass, as in Next", () => {
    expect(action({ host: "localhost:3000" })).toBe(false);
    expect(action({ host: "localhost:3000", origin: "https://evil.example" }, "GET")).toBe(false);
    expect(isCrossSiteAction({ method: "POST", url: "/w/acme", headers: { host: "localhost:3000", origin: "https://evil.example" } })).toBe(
      false,
    );
  });
  it("include forms posted to a page without JavaScript (no Next-Action header), but not posts to route handlers", () => {
    const evil = { host: "localhost:3000", origin: "https://evil.example" };
    for (const type of ["multipart/form-data; boundary=x", "application/x-www-form-urlencoded"]) {
      expect(isCrossSiteAction({ method: "POST", url: "/login", headers: { ...evil, "content-type": type } }), type).toBe(true);
      expect(isCrossSiteAction({ method: "POST", url: "/api/auth/callback/oidc", headers: { ...evil, "content-type": type } }), type).toBe(
        false,
      );
      expect(
        isCrossSiteAction({ method: "POST", url: "/login", headers: { ...evil, origin: "http://localhost:3000", "content-type": type } }),
      ).toBe(false);
    }
  });
});

describe("requests answered before Next", () => {
  it("a Host header that is not a host and optional port is a 400, in the API's shape on API paths", () => {
    for (const host of ["a b", "localhost:99999", "[::1", "x:y:z", "a/b", "u@h", "h?x", ""])
      expect(isValidHostHeader(host), host).toBe(false);
    for (const host of ["localhost:3000", "127.0.0.1", "[::1]:3000", "links.example.com", "LOCALHOST"])
      expect(isValidHostHeader(host), host).toBe(true);
    expect(earlyAnswer({ method: "GET", url: "/login", headers: { host: "a b" } })?.status).toBe(400);
    expect(JSON.parse(earlyAnswer({ method: "GET", url: "/api/v1/links", headers: { host: "localhost:99999" } })!.body).error).toBe(
      "validation",
    );
    expect(earlyAnswer({ method: "GET", url: "/login", headers: { host: "localhost:3000" } })).toBeNull();
    const twice = { method: "GET", url: "/login", headers: { host: "a.example" }, rawHeaders: ["Host", "a.example", "host", "b.example"] };
    expect(earlyAnswer(twice)?.status).toBe(400);
    // HTTP/1.0 without a Host header: Node lets it through and so does the guard.
    expect(earlyAnswer({ method: "GET", url: "/login", headers: {} })).toBeNull();
  });
  it("unrouted methods 405, OPTIONS * 204, non-path targets and bad escapes 400; ordinary requests pass", () => {
    expect(earlyAnswer({ method: "TRACE", url: "/api/v1/links" })).toMatchObject({ status: 405, headers: { Allow: expect.any(String) } });
    expect(JSON.parse(earlyAnswer({ method: "TRACE", url: "/api/v1/links" })!.body).error).toBe("validation");
    expect(earlyAnswer({ method: "OPTIONS", url: "*" })?.status).toBe(204);
    expect(earlyAnswer({ method: "GET", url: "*" })?.status).toBe(400);
    expect(earlyAnswer({ method: "GET", url: "/w/%E0%A4%A/links" })?.status).toBe(400);
    expect(earlyAnswer({ method: "GET", url: "/api/v1/%E0%A4%A" })).toBeNull(); // repaired by lib/http/api-url.ts instead
    expect(earlyAnswer({ method: "GET", url: "/w/acme/links?q=%E0%A4%A" })).toBeNull();
    expect(earlyAnswer({ method: "POST", url: "/w/acme/links" })).toBeNull();
  });
  it("ids in page URLs are plain decimals in 1..2^31-1", () => {
    expect(["42", "2147483647"].map(parseIdParam)).toEqual([42, 2147483647]);
    for (const bad of ["0", "-1", "2147483648", "99999999999", "1e3", "0x10", "042", " 4", "4.0", ""])
      expect(parseIdParam(bad), bad).toBeNull();
  });
});
