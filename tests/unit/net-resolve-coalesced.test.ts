import { describe, expect, it } from "vitest";
import { coalesced, type Resolve } from "../../lib/net/resolve.ts";

// Webhook attempts to one endpoint that start together share one DNS lookup (lib/net/resolve.ts),
// but an answer is never kept: a lookup after it settled asks again.

function countingResolver() {
  const asked: string[] = [];
  const pending: { host: string; settle: (v: string[] | Error) => void }[] = [];
  const resolve: Resolve = (host) =>
    new Promise((ok, fail) => {
      asked.push(host);
      pending.push({ host, settle: (v) => (v instanceof Error ? fail(v) : ok(v)) });
    });
  return { resolve, asked, pending };
}

describe("coalesced resolver", () => {
  it("answers concurrent lookups of one name with one question, and other names separately", async () => {
    const r = countingResolver();
    const resolve = coalesced(r.resolve);
    const a = [resolve("hooks.example.com"), resolve("hooks.example.com"), resolve("other.example.com")];
    expect(r.asked).toEqual(["hooks.example.com", "other.example.com"]);
    r.pending[0].settle(["203.0.113.7"]);
    r.pending[1].settle(["198.51.100.1"]);
    expect(await Promise.all(a)).toEqual([["203.0.113.7"], ["203.0.113.7"], ["198.51.100.1"]]);
  });

  it("asks again once the answer is in (nothing is cached)", async () => {
    const r = countingResolver();
    const resolve = coalesced(r.resolve);
    const first = resolve("hooks.example.com");
    r.pending[0].settle(["203.0.113.7"]);
    await first;
    const second = resolve("hooks.example.com");
    expect(r.asked).toEqual(["hooks.example.com", "hooks.example.com"]);
    r.pending[1].settle(["10.0.0.5"]);
    expect(await second).toEqual(["10.0.0.5"]);
  });

  it("gives a failure to everyone who shared the lookup, then asks again", async () => {
    const r = countingResolver();
    const resolve = coalesced(r.resolve);
    const both = [resolve("gone.example.com"), resolve("gone.example.com")];
    r.pending[0].settle(new Error("ENOTFOUND"));
    for (const p of both) await expect(p).rejects.toThrow("ENOTFOUND");
    void resolve("gone.example.com").catch(() => {});
    expect(r.asked).toHaveLength(2);
  });

  it("gives each caller its own copy of the addresses", async () => {
    const r = countingResolver();
    const resolve = coalesced(r.resolve);
    const [a, b] = [resolve("h.example.com"), resolve("h.example.com")];
    r.pending[0].settle(["203.0.113.7"]);
    (await a).push("10.0.0.1");
    expect(await b).toEqual(["203.0.113.7"]);
  });
});
