import { describe, expect, it } from "vitest";
import type { Link } from "../../lib/db/generated/client.ts";
import { monthOf } from "../../lib/clock.ts";
import { featuresRequested, isDenylisted, isServiceHost, missingFeature, scheduleProblem } from "../../lib/links/rules.ts";
import { generateCode, RESERVED_PATHS } from "../../lib/links/short-code.ts";
import { createLinkSchema, listLinksQuerySchema, updateLinkSchema, webhookLinkSchema, apiLinkSchema } from "../../lib/links/schemas.ts";
import { changedFields, toApiLink, toWebhookLink } from "../../lib/links/serialize.ts";
import { errorBody } from "../../lib/api/error-body.ts";
import { issueMessages } from "../../lib/errors.ts";
import { decodeCursor, encodeCursor } from "../../lib/links/list.ts";

const messages = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.success ? [] : issueMessages(r.error!.issues);

describe("createLinkSchema", () => {
  it("accepts a minimal body and normalizes url, domain and folder", () => {
    expect(createLinkSchema.parse({ url: " https://example.com/x " })).toEqual({ url: "https://example.com/x" });
    expect(createLinkSchema.parse({ url: "http://a.b", domain: " Go.Example.COM. ", folder: "/mkt/2026/" })).toEqual({
      url: "http://a.b",
      domain: "go.example.com",
      folder: "mkt/2026",
    });
  });

  it("refuses what docs/api.md calls validation errors, naming the field", () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^url:/],
      [{ url: "not a url" }, /^url: must be an absolute http or https URL/],
      [{ url: "ftp://example.com" }, /^url:/],
      [{ url: "https://example.com", alias: "a".repeat(41) }, /^alias: must be 1 to 40/],
      [{ url: "https://example.com", alias: "with space" }, /^alias:/],
      [{ url: "https://example.com", alias: "ümlaut" }, /^alias:/],
      [{ url: "https://example.com", extra: 1 }, /Unrecognized key.*extra/],
      [{ url: "https://example.com", title: "a\u0000b" }, /^title: must not contain NUL/],
      [{ url: "https://example.com", maxClicks: 0 }, /^maxClicks:/],
      [{ url: "https://example.com", expiresOn: 1.5 }, /^expiresOn:/],
      [{ url: "https://example.com", expiresOn: 253_402_300_800 }, /^expiresOn:/],
      [{ url: "https://example.com", folder: "a//b" }, /^folder:/],
      [{ url: "https://example.com", targeting: { geo: { de: "https://x.y" } } }, /^targeting\.geo/],
      [{ url: "https://example.com", targeting: { desktop: "https://x.y" } }, /Unrecognized key/],
      [{ url: "https://example.com", fallbackUrl: "mailto:x@y.z" }, /^fallbackUrl:/],
    ];
    for (const [body, re] of cases) {
      const m = messages(createLinkSchema.safeParse(body));
      expect(m.join(" | "), JSON.stringify(body)).toMatch(re);
    }
  });

  it("allows every alias of 1 to 40 letters, digits, - and _ (case kept)", () => {
    for (const alias of ["a", "A-b_C", "x".repeat(40), "0123456789"])
      expect(createLinkSchema.parse({ url: "https://e.x", alias }).alias).toBe(alias);
  });

  it("PATCH takes everything optional, null to clear, and refuses domain", () => {
    expect(updateLinkSchema.parse({})).toEqual({});
    expect(updateLinkSchema.parse({ expiresOn: null, password: null, notes: null, targeting: null })).toEqual({
      expiresOn: null,
      password: null,
      notes: null,
      targeting: null,
    });
    expect(messages(updateLinkSchema.safeParse({ domain: "x.test" })).join()).toMatch(/^domain: cannot be changed/);
    expect(messages(updateLinkSchema.safeParse({ url: null })).join()).toMatch(/^url:/);
  });

  it("list query: size 1..100 from the query string's text", () => {
    expect(listLinksQuerySchema.parse({ size: "100" })).toEqual({ size: 100 });
    expect(listLinksQuerySchema.parse({ size: "1" })).toEqual({ size: 1 });
    for (const size of ["0", "101", "1.5", "-1", "abc", "", "1e2"])
      expect(listLinksQuerySchema.safeParse({ size }).success, size).toBe(false);
    expect(listLinksQuerySchema.safeParse({ page: "2" }).success).toBe(false);
  });
});

describe("destination rules", () => {
  it("denylist matches the host and its subdomains only", () => {
    const list = ["blocked.example", "Evil.Test."];
    expect(isDenylisted("blocked.example", list)).toBe(true);
    expect(isDenylisted("www.blocked.example", list)).toBe(true);
    expect(isDenylisted("BLOCKED.EXAMPLE.", list)).toBe(true);
    expect(isDenylisted("a.b.evil.test", list)).toBe(true);
    expect(isDenylisted("notblocked.example", list)).toBe(false);
    expect(isDenylisted("blocked.example.com", list)).toBe(false);
    expect(isDenylisted("anything", [])).toBe(false);
  });

  it("short-link hosts: with a port only that port, without a port any port", () => {
    const hosts = ["localhost:3000", "lnk.to", "[::1]:8080"];
    expect(isServiceHost(new URL("http://localhost:3000/x"), hosts)).toBe(true);
    expect(isServiceHost(new URL("http://LOCALHOST:3000"), hosts)).toBe(true);
    expect(isServiceHost(new URL("http://localhost:3001/x"), hosts)).toBe(false);
    expect(isServiceHost(new URL("https://lnk.to/abc"), hosts)).toBe(true);
    expect(isServiceHost(new URL("https://lnk.to:8443/abc"), hosts)).toBe(true);
    expect(isServiceHost(new URL("http://lnk.to./abc"), hosts)).toBe(true);
    expect(isServiceHost(new URL("https://sub.lnk.to/abc"), hosts)).toBe(false);
    expect(isServiceHost(new URL("http://[::1]:8080/"), hosts)).toBe(true);
    expect(isServiceHost(new URL("https://lnk.to"), ["lnk.to:443"])).toBe(true);
    // loopback names stand for each other, on the configured port only
    expect(isServiceHost(new URL("http://127.0.0.1:3000/x"), hosts)).toBe(true);
    expect(isServiceHost(new URL("http://[::1]:3000/x"), hosts)).toBe(true);
    expect(isServiceHost(new URL("http://127.0.0.1:3001/x"), hosts)).toBe(false);
    expect(isServiceHost(new URL("http://10.1.2.3:3000/x"), hosts)).toBe(false);
  });

  it("a loopback short-link host: every spelling of this machine on its port, as the URL parser normalises it", () => {
    const hosts = ["localhost:3000", "lnk.to"];
    for (const url of [
      "http://[::ffff:127.0.0.1]:3000/x",
      "http://[::ffff:7f00:1]:3000/x",
      "http://[::127.0.0.1]:3000/x",
      "http://127.0.0.2:3000/x",
      "http://127.255.255.255:3000/x",
      "http://0.0.0.0:3000/x",
      "http://0:3000/x",
      "http://[::]:3000/x",
      "http://2130706433:3000/x",
      "http://0x7f000001:3000/x",
      "http://0x7f.1:3000/x",
      "http://0177.0.0.1:3000/x",
      "http://127.1:3000/x",
      "http://%31%32%37.0.0.1:3000/x",
      "http://app.localhost:3000/x",
      "http://LocalHost.:3000/x",
    ]) {
      expect(isServiceHost(new URL(url), hosts), url).toBe(true);
      expect(isServiceHost(new URL(url.replace(":3000", ":3001")), hosts), url).toBe(false);
    }
    // A name counts only when DNS said it resolves here (reachesHere); IPs elsewhere never do.
    expect(isServiceHost(new URL("http://loop.example:3000/x"), hosts)).toBe(false);
    expect(isServiceHost(new URL("http://loop.example:3000/x"), hosts, true)).toBe(true);
    expect(isServiceHost(new URL("http://128.0.0.1:3000/x"), hosts)).toBe(false);
    expect(isServiceHost(new URL("http://[::ffff:10.0.0.1]:3000/x"), hosts)).toBe(false);
    // A public short domain: loopback destinations are the visitor's own machine, not a short link.
    expect(isServiceHost(new URL("http://127.0.0.1/x"), ["lnk.to"])).toBe(false);
  });
});

describe("features and schedule", () => {
  it("asks for a feature only for values set, not for nulls", () => {
    expect(featuresRequested({ url: "https://x.y" })).toEqual([]);
    expect(featuresRequested({ url: "https://x.y", alias: "a", expiresOn: 1, password: "p" })).toEqual([
      "CustomAliases",
      "LinkExpiry",
      "LinkPasswords",
    ]);
    expect(featuresRequested({ startsOn: 5 })).toEqual(["LinkExpiry"]);
    expect(featuresRequested({ expiresOn: null, startsOn: null, password: null })).toEqual([]);
    expect(featuresRequested({ url: "https://x.y" }, { domainId: 4, domainKey: 4, host: "go.x" })).toEqual(["CustomDomains"]);
    expect(featuresRequested({ url: "https://x.y" }, { domainId: null, domainKey: 0, host: "localhost:3000" })).toEqual([]);
  });

  it("reports the first feature the plan lacks as 403 feature", () => {
    expect(errorBody(missingFeature({ plan: "free" }, ["CustomAliases", "LinkPasswords"])!)).toEqual({
      error: "feature",
      key: "CustomAliases",
      upgrade: true,
    });
    expect(missingFeature({ plan: "pro" }, ["CustomAliases", "LinkPasswords"])).toBeNull();
    expect(missingFeature({ plan: "pro" }, ["CustomDomains"])).toBeNull();
  });

  it("startsOn must be before expiresOn when both are given", () => {
    expect(scheduleProblem({ startsOn: 10, expiresOn: 5 })).toMatch(/startsOn/);
    expect(scheduleProblem({ startsOn: 5, expiresOn: 5 })).toMatch(/startsOn/);
    expect(scheduleProblem({ startsOn: 5, expiresOn: 10 })).toBeNull();
    expect(scheduleProblem({ startsOn: 5 })).toBeNull();
  });
});

describe("codes, cursors, months", () => {
  it("generates 7 base62 characters, never a reserved path", () => {
    const codes = new Set(Array.from({ length: 2000 }, generateCode));
    expect(codes.size).toBe(2000);
    for (const c of codes) {
      expect(c).toMatch(/^[0-9A-Za-z]{7}$/);
      expect(RESERVED_PATHS.has(c)).toBe(false);
    }
  });

  it("round-trips the opaque cursor and refuses anything else", () => {
    const at = new Date("2026-11-22T08:00:00.123Z");
    expect(decodeCursor(encodeCursor({ createdAt: at, id: 42 }))).toEqual({ createdAt: at, id: 42 });
    for (const bad of [
      "",
      "abc",
      "!!!",
      Buffer.from("1.2.3").toString("base64url"),
      Buffer.from("x.1").toString("base64url"),
      Buffer.from("1.99999999999").toString("base64url"),
      "A".repeat(100),
    ]) {
      expect(decodeCursor(bad), bad).toBeNull();
    }
  });

  it("counts months in UTC", () => {
    expect(monthOf(new Date("2026-11-30T23:59:59.999Z"))).toBe("2026-11");
    expect(monthOf(new Date("2026-12-01T00:00:00.000Z"))).toBe("2026-12");
  });
});

describe("serializers", () => {
  const link: Link = {
    id: 7,
    workspaceId: 1,
    domainId: null,
    domainKey: 0,
    code: "Ab3dE9x",
    url: "https://example.com",
    title: "T",
    notes: null,
    folder: "a/b",
    active: true,
    startsOn: new Date("2026-01-01T00:00:00.900Z"),
    expiresOn: null,
    maxClicks: 3,
    fallbackUrl: null,
    passwordHash: "scrypt$...",
    targeting: { ios: "https://i.x" },
    routing: null,
    clicks: 12,
    lastClickedAt: null,
    createdAt: new Date("2026-11-22T08:00:00.500Z"),
    updatedAt: new Date(),
  };

  it("builds exactly the documented webhook link object, times in unix seconds", () => {
    const w = toWebhookLink(link, "localhost:3000");
    expect(Object.keys(w)).toEqual([
      "id",
      "short",
      "code",
      "domain",
      "url",
      "active",
      "expiresOn",
      "maxClicks",
      "startsOn",
      "fallbackUrl",
      "createdOn",
      "folder",
      "title",
      "notes",
    ]);
    expect(w).toMatchObject({ short: "http://localhost:3000/Ab3dE9x", startsOn: 1767225600, createdOn: 1795334400, expiresOn: null });
    webhookLinkSchema.parse(w);
  });

  it("adds clicks, hasPassword and targeting for the API, never the password; the webhook object has no targeting", () => {
    const a = toApiLink(link, "go.example.com");
    apiLinkSchema.parse(a);
    expect(a).toMatchObject({ clicks: 12, hasPassword: true, domain: "go.example.com", short: "http://go.example.com/Ab3dE9x" });
    expect(a.targeting).toEqual({ ios: "https://i.x" });
    expect(JSON.stringify(a)).not.toMatch(/scrypt/);
    expect(JSON.stringify(toWebhookLink(link, "go.example.com"))).not.toMatch(/targeting/);
  });

  it("names the changed webhook fields in the documented order", () => {
    const before = toWebhookLink(link, "localhost:3000");
    expect(changedFields(before, toWebhookLink({ ...link, title: "New", code: "x" }, "localhost:3000"))).toEqual([
      "short",
      "code",
      "title",
    ]);
    expect(changedFields(before, toWebhookLink({ ...link, targeting: null, passwordHash: null }, "localhost:3000"))).toEqual([]);
  });
});
