import { describe, expect, it } from "vitest";
import { checkDestination } from "../../lib/net/guard.ts";
import { DnsError } from "../../lib/net/resolve.ts";
import { suggestsLocalTesting } from "../../app/w/[slug]/developers/local-testing-hint.tsx";
import { endpointUrlHint } from "../../lib/webhooks/guard.ts";

// What the webhook form says about a refused URL: plain words instead of a resolver's code, and
// the WEBHOOK_ALLOW_PRIVATE hint only where it helps (a private or local address).

const failing = (code: string) => async (host: string) => {
  throw new DnsError(host, code);
};

describe("a host that cannot be resolved", () => {
  it("is said in words; the resolver's code goes to the server log only", async () => {
    const missing = await checkDestination("https://missing.example.com/hook", { allowPrivate: false, resolve: failing("ENOTFOUND") });
    expect(missing).toMatchObject({ ok: false, reason: "dns", detail: "missing.example.com: ENOTFOUND" });
    expect(missing.ok === false && missing.message).toBe(
      "The host missing.example.com cannot be resolved: no DNS record was found for it. Check the spelling of the address.",
    );
    const down = await checkDestination("https://slow.example.com/hook", { allowPrivate: false, resolve: failing("ETIMEOUT") });
    expect(down.ok === false && down.message).toBe(
      "The host slow.example.com cannot be resolved right now: the DNS server did not answer. Try again in a moment.",
    );
    for (const r of [missing, down]) expect(r.ok === false && r.message).not.toMatch(/E[A-Z]{4,}/);
  });
});

describe("the local-testing hint", () => {
  const address = "The host box.example.com resolves to a private or reserved address; webhooks only go to public addresses.";
  it("follows a private-address refusal, and http or another port on a local host", () => {
    expect(suggestsLocalTesting("https://box.example.com/hook", address)).toBe(true);
    expect(suggestsLocalTesting("http://localhost:4000/hook", "The URL must start with https://.")).toBe(true);
    expect(suggestsLocalTesting("https://192.168.1.20:8443/hook", "The URL must use port 443.")).toBe(true);
    expect(suggestsLocalTesting("http://[::1]:4000/hook", "The URL must start with https://.")).toBe(true);
  });
  it("stays away from refusals it would not help with", () => {
    expect(suggestsLocalTesting("http://hooks.example.com/hook", "The URL must start with https://.")).toBe(false);
    expect(suggestsLocalTesting("https://missing.example.com/hook", "The host missing.example.com cannot be resolved: no DNS record")).toBe(
      false,
    );
    expect(suggestsLocalTesting("https://user:pw@localhost/hook", "The URL must not contain a user name or password")).toBe(false);
    expect(suggestsLocalTesting("http://localhost/hook", undefined)).toBe(false);
  });
});

describe("the endpoint form's URL hint", () => {
  it("says https, port 443 and public addresses where the guard requires them", () => {
    expect(endpointUrlHint({ allowPrivate: false })).toBe("HTTPS on port 443, on a public address. A token may go in the path or query.");
    expect(endpointUrlHint({ allowPrivate: false, allowPort: 8443 })).toContain("port 443 or 8443");
  });
  it("says private addresses are allowed where WEBHOOK_ALLOW_PRIVATE is set, and no longer claims https or a public address", () => {
    const hint = endpointUrlHint({ allowPrivate: true });
    expect(hint).toContain("private and local addresses are allowed");
    expect(hint).not.toMatch(/public address|HTTPS on port/);
  });
});
