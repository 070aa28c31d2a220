import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FEATURES, loadPlans, PlansFileError, webhookRatePerSecond } from "../../lib/plans/index.ts";

// The built-in plan table is what the Plans table of docs/configuration.md promises; every API test
// replaces it through PLANS_FILE, so it is checked here against that page itself.

type Row = { id: string; rateLimit: number | null; liveKeys: number; maxLinks: number; webhookEndpoints: number; features: string[] };

function documentedPlans(): Row[] {
  const page = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/configuration.md"), "utf8");
  const section = page.slice(page.indexOf("## Plans"));
  const lines = section.split("\n").filter((l) => /^\| `[a-z0-9_-]+` \|/.test(l));
  const rows: Row[] = [];
  for (const line of lines) {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    const [id, rate, keys, links, hooks, features] = cells;
    // "+ A, B": the previous row's features and these; "all of <id>": that row's features
    let list: string[];
    const allOf = /^all of (\S+)$/.exec(features);
    if (allOf) list = [...rows.find((r) => r.id === allOf[1])!.features];
    else if (features.startsWith("+ "))
      list = [
        ...rows[rows.length - 1].features,
        ...features
          .slice(2)
          .split(",")
          .map((f) => f.trim()),
      ];
    else list = features.split(",").map((f) => f.trim());
    rows.push({
      id: id.replace(/`/g, ""),
      rateLimit: rate === "none" ? null : Number(rate),
      liveKeys: Number(keys),
      maxLinks: Number(links),
      webhookEndpoints: Number(hooks),
      features: list,
    });
  }
  return rows;
}

describe("built-in plan table", () => {
  it("is the table of docs/configuration.md, row for row (free, pro, team, business)", () => {
    const documented = documentedPlans();
    expect(documented.map((r) => r.id)).toEqual(["free", "pro", "team", "business"]);
    const builtIn = loadPlans(undefined);
    expect(Object.keys(builtIn)).toEqual(documented.map((r) => r.id));
    for (const row of documented) {
      const plan = builtIn[row.id];
      expect(
        {
          id: plan.id,
          rateLimit: plan.rateLimit,
          liveKeys: plan.liveKeys,
          maxLinks: plan.maxLinks,
          webhookEndpoints: plan.webhookEndpoints,
        },
        row.id,
      ).toEqual({
        id: row.id,
        rateLimit: row.rateLimit,
        liveKeys: row.liveKeys,
        maxLinks: row.maxLinks,
        webhookEndpoints: row.webhookEndpoints,
      });
      expect([...plan.features].sort(), row.id).toEqual([...row.features].sort());
      for (const f of row.features) expect(FEATURES, `${row.id}: ${f} is a known feature`).toContain(f);
    }
  });

  it("the Business plan: 3000 requests, 25 keys, 500000 links, 25 endpoints, everything Team has", () => {
    const { business, team } = loadPlans(undefined);
    expect(business).toMatchObject({ name: "Business", rateLimit: 3000, liveKeys: 25, maxLinks: 500_000, webhookEndpoints: 25 });
    expect([...business.features].sort()).toEqual([...team.features].sort());
  });
});

describe("webhook delivery rate per endpoint", () => {
  it("Team 50/s and Business 200/s by default; a PLANS_FILE plan may set its own; other plans fall back to 50/s", () => {
    const { team, business } = loadPlans(undefined);
    expect([webhookRatePerSecond(team), webhookRatePerSecond(business)]).toEqual([50, 200]);
    expect(webhookRatePerSecond({ id: "team", webhookRatePerSecond: 7 })).toBe(7);
    expect(webhookRatePerSecond({ id: "custom" })).toBe(50);
  });
});

describe("PLANS_FILE", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "linkhop-plans-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    return p;
  };

  it("replaces the whole table", () => {
    const p = file(
      "one.json",
      JSON.stringify({
        plans: { solo: { name: "Solo", rateLimit: null, liveKeys: 1, maxLinks: 5, webhookEndpoints: 0, features: ["ApiAccess"] } },
      }),
    );
    expect(Object.keys(loadPlans(p))).toEqual(["solo"]);
  });

  it.each([
    ["missing", path.join(dir, "nope.json")],
    ["not JSON", "broken.json"],
    ["an unknown feature", "feature.json"],
    ["a negative limit", "negative.json"],
    ["no plans", "empty.json"],
  ])("a file with %s is refused, naming PLANS_FILE and the file", (_what, name) => {
    const contents: Record<string, string> = {
      "broken.json": "{ plans: ",
      "feature.json": JSON.stringify({
        plans: { x: { name: "X", rateLimit: 1, liveKeys: 1, maxLinks: 1, webhookEndpoints: 0, features: ["Teleport"] } },
      }),
      "negative.json": JSON.stringify({
        plans: { x: { name: "X", rateLimit: 1, liveKeys: -1, maxLinks: 1, webhookEndpoints: 0, features: [] } },
      }),
      "empty.json": JSON.stringify({ plans: {} }),
    };
    const p = contents[name] ? file(name, contents[name]) : name;
    expect(() => loadPlans(p)).toThrow(PlansFileError);
    expect(() => loadPlans(p)).toThrow(/PLANS_FILE/);
    expect(() => loadPlans(p)).toThrow(p);
  });
});
