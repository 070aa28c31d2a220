import { describe, expect, it } from "vitest";
import { DomainTable, LinkCache } from "../../lib/redirects/cache.ts";
import type { ServedDomain } from "../../lib/redirects/domain-pages.ts";
import { parseChange } from "../../lib/redirects/notify.ts";
import { PAGES, passwordForm } from "../../lib/redirects/pages.ts";
import { passwordFromForm, visitorKey } from "../../lib/redirects/password.ts";
import type { RedirectLink } from "../../lib/redirects/lifecycle.ts";

const link = (id: number, url = `https://example.com/${id}`): RedirectLink => ({
  id,
  workspaceId: 1,
  domainKey: 0,
  url,
  active: true,
  startsOn: null,
  expiresOn: null,
  maxClicks: null,
  clicks: 0,
  fallbackUrl: null,
  passwordHash: null,
  targeting: null,
});

function deferred<T>() {
  let resolve!: (v: T) => void, reject!: (e: unknown) => void;
  const promise = new Promise<T>((a, b) => ((resolve = a), (reject = b)));
  return { promise, resolve, reject };
}

const opts = { ttlMs: 60_000, negativeTtlMs: 5_000, degradedTtlMs: 1_000, maxEntries: 3 };

describe("LinkCache", () => {
  it("loads once, then answers from memory; invalidation forces a reload", async () => {
    let loads = 0;
    const cache = new LinkCache(async (_d, code) => (loads++, code === "none" ? null : link(loads)), opts);
    cache.live = true;
    expect(cache.get(0, "a", Date.now())).toBeUndefined();
    const [x, y] = await Promise.all([cache.fetch(0, "a"), cache.fetch(0, "a")]);
    expect(x).toBe(y);
    expect(loads).toBe(1);
    expect(cache.get(0, "a", Date.now())).toBe(x);
    expect(cache.get(3, "a", Date.now())).toBeUndefined();
    cache.invalidate(0, "a");
    expect(cache.get(0, "a", Date.now())).toBeUndefined();
    expect(await cache.fetch(0, "none")).toBeNull();
    expect(cache.get(0, "none", Date.now())).toBeNull();
  });

  it("does not cache an answer loaded across an invalidation", async () => {
    const d = deferred<RedirectLink | null>();
    const cache = new LinkCache(() => d.promise, opts);
    cache.live = true;
    const pending = cache.fetch(0, "a");
    cache.invalidate(0, "a");
    d.resolve(link(1, "https://old.example/"));
    await pending;
    expect(cache.get(0, "a", Date.now())).toBeUndefined();
  });

  it("uses short TTLs for misses and while not listening", async () => {
    const cache = new LinkCache(async (_d, code) => (code === "none" ? null : link(1)), opts);
    cache.live = true;
    await cache.fetch(0, "a");
    await cache.fetch(0, "none");
    const t = Date.now();
    expect(cache.get(0, "a", t + 30_000)).not.toBeUndefined();
    expect(cache.get(0, "none", t + 6_000)).toBeUndefined();
    cache.live = false;
    expect(cache.get(0, "a", t + 500)).not.toBeUndefined();
    expect(cache.get(0, "a", t + 1_500)).toBeUndefined();
  });

  it("serves a stale entry when the database fails, and fails without one", async () => {
    let fail = false;
    const cache = new LinkCache(
      async () => {
        if (fail) throw new Error("db down");
        return link(1);
      },
      { ...opts, ttlMs: 0 },
    );
    cache.live = true;
    await cache.fetch(0, "a");
    fail = true;
    expect((await cache.fetch(0, "a"))?.id).toBe(1);
    await expect(cache.fetch(0, "b")).rejects.toThrow("db down");
  });

  it("evicts the oldest entries beyond maxEntries", async () => {
    const cache = new LinkCache(async (_d, code) => link(code.charCodeAt(0)), opts);
    cache.live = true;
    for (const c of ["a", "b", "c", "d"]) await cache.fetch(0, c);
    expect(cache.entries).toBe(3);
    expect(cache.get(0, "a", Date.now())).toBeUndefined();
    expect(cache.get(0, "d", Date.now())).not.toBeUndefined();
  });
});

describe("DomainTable", () => {
  it("keeps the newest reload when two overlap", async () => {
    const first = deferred<Map<string, ServedDomain>>();
    const second = deferred<Map<string, ServedDomain>>();
    const loads = [first.promise, second.promise];
    const table = new DomainTable(() => loads.shift()!);
    const a = table.reload();
    const b = table.reload();
    second.resolve(new Map([["new.example", { id: 2, pages: null }]]));
    await b;
    first.resolve(new Map([["old.example", { id: 1, pages: null }]]));
    await a;
    expect(table.idOf("new.example")).toBe(2);
    expect(table.idOf("old.example")).toBeUndefined();
  });
});

describe("parseChange", () => {
  it("reads the trigger payloads", () => {
    expect(parseChange("l:0:abc")).toEqual({ kind: "link", domainKey: 0, code: "abc" });
    expect(parseChange("l:12:a-b_c")).toEqual({ kind: "link", domainKey: 12, code: "a-b_c" });
    expect(parseChange("d:Go.Example")).toEqual({ kind: "domain", host: "go.example" });
    expect(parseChange("w:3")).toEqual({ kind: "workspace", id: 3 });
    expect(parseChange("l:x:abc")).toBeNull();
    expect(parseChange("zzz")).toBeNull();
    expect(parseChange(undefined)).toBeNull();
  });
});

describe("pages and form", () => {
  it("are small, self-contained HTML", () => {
    for (const page of Object.values(PAGES)) {
      expect(page.length).toBeLessThan(2048);
      expect(page.toString()).not.toMatch(/<script|<link|src=/);
    }
  });
  it("the password form posts `password` to the link's own URL with a label", () => {
    const html = passwordForm("abc", false).toString();
    expect(html).toContain('<form method="post" action="/abc">');
    expect(html).toContain('<label for="password">');
    expect(html).toContain('name="password"');
    expect(html).not.toContain('role="alert"');
    expect(passwordForm("abc", true).toString()).toContain('role="alert"');
  });
  it("reads the form and hides visitor addresses", () => {
    expect(passwordFromForm("password=s%C3%A9cret+1&x=2")).toBe("sécret 1");
    expect(passwordFromForm("")).toBe("");
    expect(visitorKey("127.0.0.1")).toMatch(/^[0-9a-f]{32}$/);
    expect(visitorKey("127.0.0.1")).not.toBe(visitorKey("127.0.0.2"));
  });
});
