import { describe, expect, it } from "vitest";
import { checkDestination, checkUrlShape } from "../../lib/net/guard.ts";
import { DnsError, type Resolve } from "../../lib/net/resolve.ts";

// The guard with a resolver the test controls (the real DNS server variant is in
// tests/integration/webhooks-guard.test.ts).
function resolverOf(table: Record<string, string[]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const fn = (async (host: string) => {
    calls.push(host);
    if (/^[\d.]+$/.test(host) || host.includes(":")) return [host];
    const a = table[host];
    if (!a) throw new DnsError(host, "ENOTFOUND");
    return a;
  }) as Resolve & { calls: string[] };
  fn.calls = calls;
  return fn;
}

const strict = (table: Record<string, string[]>) => ({ allowPrivate: false, resolve: resolverOf(table) });

describe("webhook URL shape", () => {
  it("accepts https on 443 with a path and query token", () => {
    const r = checkUrlShape("https://hooks.example.com/in?token=abc", false);
    expect(r.ok).toBe(true);
    expect(checkUrlShape("https://hooks.example.com:443/in", false).ok).toBe(true);
  });
  it("allows the one port WEBHOOK_TEST_ALLOW_PORT names besides 443, and lifts no other rule", async () => {
    expect(checkUrlShape("https://hooks.example.com:8443/in", false, 8443)).toMatchObject({ ok: true, port: 8443 });
    expect(checkUrlShape("https://hooks.example.com/in", false, 8443).ok).toBe(true);
    expect(checkUrlShape("https://hooks.example.com:8444/in", false, 8443)).toMatchObject({ ok: false, reason: "port" });
    expect(checkUrlShape("http://hooks.example.com:8443/in", false, 8443)).toMatchObject({ ok: false, reason: "scheme" });
    const opts = { ...strict({ "hooks.example.com": ["93.184.216.34"], "inside.example.com": ["10.0.0.7"] }), allowPort: 8443 };
    expect(await checkDestination("https://hooks.example.com:8443/in", opts)).toMatchObject({ ok: true, addresses: ["93.184.216.34"] });
    expect(await checkDestination("https://inside.example.com:8443/in", opts)).toMatchObject({ ok: false, reason: "address" });
    expect(await checkDestination("https://127.0.0.1:8443/in", opts)).toMatchObject({ ok: false, reason: "address" });
  });
  it.each([
    ["http://hooks.example.com/in", "scheme"],
    ["ftp://hooks.example.com/in", "scheme"],
    ["https://hooks.example.com:8443/in", "port"],
    ["https://user:pw@hooks.example.com/in", "credentials"],
    ["https://user@hooks.example.com/in", "credentials"],
    ["not a url", "invalid_url"],
    ["", "invalid_url"],
  ])("refuses %s (%s)", (url, reason) => {
    const r = checkUrlShape(url, false);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe(reason);
  });
  it("WEBHOOK_ALLOW_PRIVATE lifts scheme and port rules but not credentials", () => {
    expect(checkUrlShape("http://127.0.0.1:8080/in", true).ok).toBe(true);
    expect(checkUrlShape("https://a:b@127.0.0.1/in", true).ok).toBe(false);
  });
});

describe("webhook address guard", () => {
  it("accepts a host whose every address is public and returns them for pinning", async () => {
    const r = await checkDestination(
      "https://hooks.example.com/in",
      strict({ "hooks.example.com": ["93.184.216.34", "2606:2800:220:1::1"] }),
    );
    expect(r).toMatchObject({ ok: true, host: "hooks.example.com", port: 443, addresses: ["93.184.216.34", "2606:2800:220:1::1"] });
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.20.0.5", "private"],
    ["192.168.0.10", "private"],
    ["169.254.169.254", "link-local"],
    ["100.100.100.100", "cgnat"],
    ["224.0.0.251", "multicast"],
    ["240.1.2.3", "reserved"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["fd00::5", "private"],
    ["fe80::1", "link-local"],
    ["ff05::2", "multicast"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:192.168.1.1", "private"],
    ["64:ff9b::10.0.0.1", "private"],
  ])("refuses a name resolving to %s (%s)", async (address, cls) => {
    const r = await checkDestination("https://evil.example.com/in", strict({ "evil.example.com": [address] }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe("address");
      // Refused, without saying where the name points (that is for the server log only).
      expect(r.message).toContain("private or reserved address");
      expect(r.message).not.toContain(address);
      expect(r.detail).toContain(address);
    }
  });

  it("refuses when any one of several addresses is not public", async () => {
    const r = await checkDestination("https://mixed.example.com/in", strict({ "mixed.example.com": ["93.184.216.34", "10.0.0.1"] }));
    expect(r.ok).toBe(false);
  });

  it.each([
    "https://127.0.0.1/in",
    "https://[::1]/in",
    "https://[::ffff:7f00:1]/in",
    "https://2130706433/in",
    "https://0x7f.1/in",
    "https://[fe80::1]/in",
  ])("refuses the IP literal in %s", async (url) => {
    const r = await checkDestination(url, strict({}));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe("address");
  });

  it("reports a name that does not resolve as a DNS failure", async () => {
    const r = await checkDestination("https://nowhere.example.com/in", strict({}));
    expect(r).toMatchObject({ ok: false, reason: "dns" });
  });

  it("checks again on every call: public on save, private at attempt time", async () => {
    const table: Record<string, string[]> = { "flip.example.com": ["93.184.216.34"] };
    const opts = strict(table);
    expect((await checkDestination("https://flip.example.com/in", opts)).ok).toBe(true);
    table["flip.example.com"] = ["127.0.0.1"];
    const again = await checkDestination("https://flip.example.com/in", opts);
    expect(again).toMatchObject({ ok: false, reason: "address" });
    expect(opts.resolve.calls).toEqual(["flip.example.com", "flip.example.com"]);
  });

  it("WEBHOOK_ALLOW_PRIVATE lets loopback through (development and tests only)", async () => {
    const r = await checkDestination("http://localhost:8080/in", { allowPrivate: true, resolve: resolverOf({ localhost: ["127.0.0.1"] }) });
    expect(r).toMatchObject({ ok: true, addresses: ["127.0.0.1"], port: 8080 });
  });
});
