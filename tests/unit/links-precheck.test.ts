import { describe, expect, it } from "vitest";
import { cheapVerdicts } from "../../lib/links/rules.ts";

// The cheap pre-check of create rows (lib/links/rules.ts cheapVerdicts): rows in order, as if one
// by one; the allowance first, then the alias. Only rows that go on have their password hashed.

const taken =
  (...keys: string[]) =>
  (key: string) =>
    keys.includes(key);

describe("cheapVerdicts", () => {
  it("refuses a taken alias and every later row with an alias an earlier going row claimed", () => {
    const r = cheapVerdicts(["0\0a", "0\0a", null, "0\0b", "1\0a", "0\0a"], taken("0\0b"), 0, 10);
    expect(r.verdicts).toEqual(["go", "taken", "go", "taken", "go", "taken"]);
    expect(r.current).toBe(3);
  });

  it("taken rows spend no allowance; rows past the allowance are quota, taken or not", () => {
    const r = cheapVerdicts(["0\0x", null, null, "0\0x", null], taken("0\0x"), 8, 10);
    expect(r.verdicts).toEqual(["taken", "go", "go", "quota", "quota"]);
    expect(r.current).toBe(10);
  });

  it("an allowance already used (or over, after a plan change) refuses every row with the count read", () => {
    expect(cheapVerdicts([null, "0\0y"], taken(), 12, 10)).toEqual({ verdicts: ["quota", "quota"], current: 12 });
    expect(cheapVerdicts([], taken(), 3, 10)).toEqual({ verdicts: [], current: 3 });
  });
});
