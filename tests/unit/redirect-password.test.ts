import { describe, expect, it } from "vitest";
import { clientAddress, visitorKey } from "../../lib/redirects/password.ts";

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
