import { describe, expect, it } from "vitest";
import { clientAddress, guessGroup } from "../../lib/http/client-address.ts";
import { visitorKey } from "../../lib/redirects/password.ts";

describe("the visitor behind password guesses", () => {
  it("is the peer address unless a proxy is trusted", () => {
    expect(clientAddress("10.0.0.5", "203.0.113.9", false)).toBe("10.0.0.5");
    expect(clientAddress("10.0.0.5", undefined, true)).toBe("10.0.0.5");
  });
  it("behind a trusted proxy is the address that proxy appended (the last entry), not one the client wrote", () => {
    expect(clientAddress("10.0.0.5", "203.0.113.9", true)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.5", "1.2.3.4, 203.0.113.9", true)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.5", ["1.2.3.4", "203.0.113.9 "], true)).toBe("203.0.113.9");
    expect(clientAddress("10.0.0.5", " , ", true)).toBe("10.0.0.5");
  });
  it("is stored as a hash, never the address", () => {
    expect(visitorKey("203.0.113.9")).toMatch(/^[0-9a-f]{32}$/);
    expect(visitorKey("203.0.113.9")).not.toContain("203");
    expect(visitorKey("203.0.113.9")).not.toBe(visitorKey("203.0.113.10"));
  });
});

import { formToken, formTokenAccepted, formTokenCookie } from "../../lib/redirects/password.ts";

describe("guess groups", () => {
  it("an IPv4 address is its own group, also written IPv4-mapped; an IPv6 address counts as its /64", () => {
    expect(guessGroup("203.0.113.9")).toBe("203.0.113.9");
    expect(guessGroup("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(guessGroup("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(guessGroup("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(guessGroup("2001:db8:1:3::1")).not.toBe(guessGroup("2001:db8:1:2::1"));
    expect(visitorKey("2001:db8:1:2::1")).toBe(visitorKey("2001:db8:1:2:ffff::9"));
    expect(guessGroup(undefined)).toBe("unknown");
  });
  it("posts with and without the form token are counted as different visitors", () => {
    expect(visitorKey("203.0.113.9", true)).not.toBe(visitorKey("203.0.113.9", false));
  });
});

describe("the form token (double-submit cookie)", () => {
  it("is issued once and accepted only when the field repeats the cookie", () => {
    const first = formToken(undefined);
    expect(first.setCookie).toBe(true);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const cookie = `other=1; lh_pw=${first.token}`;
    expect(formToken(cookie)).toEqual({ token: first.token, setCookie: false });
    expect(formTokenAccepted(cookie, first.token)).toBe(true);
    expect(formTokenAccepted(cookie, formToken(undefined).token)).toBe(false);
    expect(formTokenAccepted(undefined, first.token)).toBe(false);
    expect(formTokenAccepted(cookie, "")).toBe(false);
    expect(formTokenAccepted("lh_pw=short", "short")).toBe(false);
    expect(formTokenCookie(first.token, true)).toMatch(/; HttpOnly; SameSite=Strict; .*; Secure$/);
    expect(formTokenCookie(first.token, false)).not.toContain("Secure");
  });
});
