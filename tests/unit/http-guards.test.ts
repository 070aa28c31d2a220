import { describe, expect, it } from "vitest";
import { isJsonServerAction, jsonNestingDepth } from "../../lib/http/action-guard.ts";
import { earlyAnswer } from "../../lib/http/request-guard.ts";
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
});

describe("requests answered before Next", () => {
  it("unrouted methods 405, OPTIONS * 204, non-path targets and bad escapes 400; ordinary requests pass", () => {
    expect(earlyAnswer({ method: "TRACE", url: "/api/v1/links" })).toMatchObject({ status: 405, headers: { Allow: expect.any(String) } });
    expect(JSON.parse(earlyAnswer({ method: "TRACE", url: "/api/v1/links" })!.body).error).toBe("validation");
    expect(earlyAnswer({ method: "OPTIONS", url: "*" })?.status).toBe(204);
    expect(earlyAnswer({ method: "GET", url: "*" })?.status).toBe(400);
    expect(earlyAnswer({ method: "GET", url: "/w/%E0%A4%A/links" })?.status).toBe(400);
    expect(earlyAnswer({ method: "GET", url: "/api/v1/%E0%A4%A" })).toBeNull(); // repaired by lib/api/url.ts instead
    expect(earlyAnswer({ method: "GET", url: "/w/acme/links?q=%E0%A4%A" })).toBeNull();
    expect(earlyAnswer({ method: "POST", url: "/w/acme/links" })).toBeNull();
  });
  it("ids in page URLs are plain decimals in 1..2^31-1", () => {
    expect(["42", "2147483647"].map(parseIdParam)).toEqual([42, 2147483647]);
    for (const bad of ["0", "-1", "2147483648", "99999999999", "1e3", "0x10", "042", " 4", "4.0", ""])
      expect(parseIdParam(bad), bad).toBeNull();
  });
});
