import { describe, expect, it } from "vitest";
import { KEPT_IN_PATH, KEPT_IN_QUERY, applyForwarding, forwardParts, safeRest } from "../../lib/redirects/forward.ts";
import { parseVisitQuery } from "../../lib/redirects/visit-query.ts";

// applyForwarding returns the joined text without parsing it when the path and query hold only
// characters the URL parser keeps as they are. These tests hold that claim against the parser
// itself, over random text from every printable ASCII character and a few others.

const ALPHABET = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), "é", "☃", "\t", "%2e", "%2F", "%zz"];
// a fixed seed (mulberry32): the same cases on every run, so a failure can be replayed
function random(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function text(next: () => number, max: number): string {
  let s = "";
  const n = Math.floor(next() * max);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

const BASES = ["https://d.example/", "https://d.example/docs", "https://user@d.example:8443/a/b/?x=1&y#frag", "http://d.example/p?q=%20a"];

describe("forwarding without a parse", () => {
  it("a path of kept characters comes out of the URL parser unchanged", () => {
    const next = random(1);
    let kept = 0;
    for (let i = 0; i < 20_000; i++) {
      const rest = text(next, 12);
      if (!KEPT_IN_PATH.test(rest) || safeRest(rest) === null || rest.startsWith("/")) continue;
      kept++;
      for (const base of BASES) {
        const b = forwardParts(base).base;
        const joined = (b.endsWith("/") ? b : b + "/") + rest;
        expect(new URL(joined).href, joined).toBe(joined);
      }
    }
    expect(kept).toBeGreaterThan(500); // the check above really ran on many paths
  });

  it("a query of kept characters comes out of the URL parser unchanged", () => {
    const next = random(2);
    let kept = 0;
    for (let i = 0; i < 20_000; i++) {
      const search = "?" + text(next, 12);
      if (!KEPT_IN_QUERY.test(search)) continue;
      kept++;
      const joined = "https://d.example/p" + search;
      expect(new URL(joined).href, joined).toBe(joined);
    }
    expect(kept).toBeGreaterThan(500);
  });

  it("gives what a parse of the joined text gives, kept characters or not", () => {
    const next = random(3);
    for (let i = 0; i < 5_000; i++) {
      const base = BASES[i % BASES.length];
      const rest = text(next, 10) || null;
      const query = parseVisitQuery("/c?" + text(next, 14));
      const got = applyForwarding(forwardParts(base), query, rest);
      if (got === null) continue;
      expect(new URL(got).href, `${base} ${rest} ${query.params.map((p) => p.raw).join("&")}`).toBe(got);
      expect(got.startsWith(forwardParts(base).originPrefix)).toBe(true);
    }
  });
});
