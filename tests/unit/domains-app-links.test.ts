import { describe, expect, it } from "vitest";
import { APP_LINK_FILE_MAX_BYTES, updateDomainSchema } from "../../lib/domains/schemas.ts";
import { AASA_PATH, ASSET_LINKS_PATH, domainPagesOf, notFoundPage, pathPage } from "../../lib/redirects/domain-pages.ts";

// The shapes of a domain's settings (lib/domains/schemas.ts) and what the redirect path answers
// from them (lib/redirects/domain-pages.ts), without a server: the integration test
// (tests/integration/domains-api.test.ts) covers the same over HTTP.

const row = (over: Partial<Parameters<typeof domainPagesOf>[0]> = {}) => ({
  aasa: null,
  asset_links: null,
  root_url: null,
  not_found_url: null,
  workspace_active: true,
  ...over,
});

describe("updateDomainSchema", () => {
  const parse = (v: unknown) => updateDomainSchema.safeParse(v);

  it("takes an object for the AASA and an array of objects for assetlinks, null to clear", () => {
    expect(parse({ appleAppSiteAssociation: { applinks: { details: [] } }, assetLinks: [{ relation: [] }] }).success).toBe(true);
    expect(parse({ appleAppSiteAssociation: null, assetLinks: null, rootUrl: null, notFoundUrl: null }).success).toBe(true);
    expect(parse({}).success).toBe(true);
  });

  it("refuses wrong shapes, unknown fields and non-URLs", () => {
    for (const body of [
      { appleAppSiteAssociation: [] },
      { appleAppSiteAssociation: "text" },
      { assetLinks: {} },
      { assetLinks: [1, 2] },
      { rootUrl: "not a url" },
      { notFoundUrl: "javascript:alert(1)" },
      { other: 1 },
    ]) {
      expect(parse(body).success, JSON.stringify(body)).toBe(false);
    }
  });

  it("holds each file to 64 KB as JSON", () => {
    const fits = { k: "x".repeat(APP_LINK_FILE_MAX_BYTES - 8) }; // {"k":"…"} is 8 bytes around the text
    expect(JSON.stringify(fits).length).toBe(APP_LINK_FILE_MAX_BYTES);
    expect(parse({ appleAppSiteAssociation: fits }).success).toBe(true);
    expect(parse({ appleAppSiteAssociation: { k: "x".repeat(APP_LINK_FILE_MAX_BYTES - 7) } }).success).toBe(false);
    expect(parse({ assetLinks: [{ k: "x".repeat(APP_LINK_FILE_MAX_BYTES) }] }).success).toBe(false);
  });
});

describe("domain pages", () => {
  const pages = domainPagesOf(
    row({ aasa: '{"applinks": {}}', asset_links: "[]", root_url: "https://example.com/home", not_found_url: "https://example.com/404" }),
    [],
  );

  it("answers the files, / and anything not found, for GET and HEAD only", () => {
    expect(pathPage(pages, "GET", AASA_PATH)).toEqual({ kind: "json", body: Buffer.from('{"applinks": {}}') });
    expect(pathPage(pages, "HEAD", ASSET_LINKS_PATH + "?x=1")).toEqual({ kind: "json", body: Buffer.from("[]") });
    expect(pathPage(pages, "GET", "/?utm=1")).toEqual({ kind: "redirect", url: "https://example.com/home" });
    expect(pathPage(pages, "GET", "/a/b")).toEqual({ kind: "redirect", url: "https://example.com/404" });
    expect(notFoundPage(pages)).toEqual({ kind: "redirect", url: "https://example.com/404" });
    expect(pathPage(pages, "POST", "/")).toBeNull();
  });

  it("a file that is not set is the 404 page, never the not-found redirect", () => {
    const only = domainPagesOf(row({ not_found_url: "https://example.com/404" }), []);
    expect(pathPage(only, "GET", AASA_PATH)).toBeNull();
    expect(pathPage(only, "GET", ASSET_LINKS_PATH)).toBeNull();
    expect(pathPage(only, "GET", "/")).toEqual({ kind: "redirect", url: "https://example.com/404" });
  });

  it("nothing for a switched-off workspace, a denylisted URL, or nothing set", () => {
    expect(domainPagesOf(row({ root_url: "https://example.com/", workspace_active: false }), [])).toBeNull();
    expect(domainPagesOf(row({ root_url: "https://bad.example/" }), ["bad.example"])).toBeNull();
    expect(domainPagesOf(row(), [])).toBeNull();
    expect(pathPage(null, "GET", "/")).toBeNull();
    expect(notFoundPage(undefined)).toBeNull();
  });
});
