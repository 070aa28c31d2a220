import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN, createKeySchema, generateApiKey, hashApiKey, isLive, keyPrefix, keyStatus } from "../../lib/keys/index.ts";
import { pooledBase62, pooledRandomBytes, randomBase62 } from "../../lib/keys/random.ts";

describe("API key format", () => {
  it("is lh_ and 40 base62 characters, different every time", () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
    for (const k of keys) expect(k).toMatch(API_KEY_PATTERN);
  });

  it("uses every base62 character about equally often", () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(200);
  });

  it("pooled (generated link codes, request ids): every base62 character about equally often over many short draws, no draw repeated", () => {
    const counts = new Map<string, number>();
    const codes = new Set<string>();
    // 8,858 codes of 7: the pool (4 KiB, 14 bytes a code) is refilled about 30 times
    for (let i = 0; i < 8_858; i++) {
      const code = pooledBase62(7);
      codes.add(code);
      for (const c of code) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(codes.size).toBe(8_858);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(200);
    const ids = new Set(Array.from({ length: 2_000 }, () => pooledRandomBytes(8).toString("hex")));
    expect(ids.size).toBe(2_000);
    expect(pooledRandomBytes(10_000)).toHaveLength(10_000); // larger than the pool: drawn directly
  });

  it("is stored as its SHA-256 hex and shown by an 11-character prefix", () => {
    const k = "lh_" + "a".repeat(40);
    expect(hashApiKey(k)).toBe(createHash("sha256").update(k).digest("hex"));
    expect(hashApiKey(k)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyPrefix(k)).toBe("lh_aaaaaaaa");
  });
});

describe("key status", () => {
  const now = new Date("2026-11-22T08:00:00Z");
  it("is live until revoked or expired", () => {
    expect(keyStatus({ revokedAt: null, expiresAt: null }, now)).toBe("live");
    expect(keyStatus({ revokedAt: null, expiresAt: new Date("2026-11-23T00:00:00Z") }, now)).toBe("live");
    expect(keyStatus({ revokedAt: null, expiresAt: now }, now)).toBe("expired");
    expect(keyStatus({ revokedAt: now, expiresAt: null }, now)).toBe("revoked");
    expect(isLive({ revokedAt: null, expiresAt: new Date("2026-11-21T00:00:00Z") }, now)).toBe(false);
  });
});

describe("createKeySchema", () => {
  it("requires a name and takes an optional expiry in whole days", () => {
    // a key without a name cannot be told apart in the list (issue 25): the app and the CLI both refuse it
    for (const input of [{}, { name: "" }, { name: "   " }, { name: null }]) {
      const r = createKeySchema.safeParse(input);
      expect(r.success, JSON.stringify(input)).toBe(false);
      expect(r.error?.issues[0].message).toBe("Enter a name for the key, e.g. what uses it.");
    }
    expect(createKeySchema.parse({ name: "CI" })).toEqual({ name: "CI", expiresInDays: null });
    expect(createKeySchema.parse({ name: "  CI  ", expiresInDays: "30" })).toEqual({ name: "CI", expiresInDays: 30 });
    for (const expiresInDays of ["0", "1.5", "abc", 3651, -1])
      expect(createKeySchema.safeParse({ name: "CI", expiresInDays }).success, String(expiresInDays)).toBe(false);
    expect(createKeySchema.safeParse({ name: "x".repeat(81) }).success).toBe(false);
  });
});
