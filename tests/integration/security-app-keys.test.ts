import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { authenticateApiKey, findLiveApiKey, revokeApiKey, type KeyLookup } from "../../lib/keys/index.ts";
import { call, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";

// 401 timing: a client probing keys must not learn from the answer time whether a key exists.
// Timings are not asserted (they are printed by `npm run bench:api-keys`); what is asserted is the
// code path: every rejected key costs one hash of a key-sized string and one lookup that finds
// nothing, against the real database.

let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

async function rejectedKeys() {
  const { workspace, keys } = await makeWorkspace("team", { keys: 3 });
  await revokeApiKey(workspace, keys[1].id);
  await db().apiKey.update({ where: { id: keys[2].id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const inactive = await makeWorkspace("team", { active: false });
  return {
    live: keys[0].key,
    rejected: {
      missing: null,
      empty: "",
      malformed: "lh_short",
      huge: "lh_" + "x".repeat(8000),
      "not base62": "lh_" + "!".repeat(40),
      unknown: "lh_" + "A".repeat(40),
      revoked: keys[1].key,
      expired: keys[2].key,
      "inactive workspace": inactive.key,
    } as Record<string, string | null>,
  };
}

describe("API key rejection", () => {
  it("every rejected key takes the same path: one hash, one lookup finding nothing; a live key authenticates", async () => {
    const { live, rejected } = await rejectedKeys();
    for (const [name, presented] of Object.entries(rejected)) {
      const lookups: { hash: string; found: boolean }[] = [];
      const counting: KeyLookup = async (hash, now) => {
        const row = await findLiveApiKey(hash, now);
        lookups.push({ hash, found: row !== null });
        return row;
      };
      expect(await authenticateApiKey(presented, counting), name).toBeNull();
      expect(lookups, name).toHaveLength(1);
      expect(lookups[0].hash, name).toMatch(/^[0-9a-f]{64}$/);
      expect(lookups[0].found, name).toBe(false);
    }
    const lookups: string[] = [];
    const ok = await authenticateApiKey(live, async (hash, now) => {
      lookups.push(hash);
      return findLiveApiKey(hash, now);
    });
    expect(ok?.workspace.plan).toBe("team");
    expect(lookups).toHaveLength(1);
  });

  it("over HTTP every rejected key answers the same 401 and the live key still works", async () => {
    const { live, rejected } = await rejectedKeys();
    const texts = new Set<string>();
    for (const [name, presented] of Object.entries(rejected)) {
      const a = await call(env.app, "GET", "/api/v1/links", presented === null ? {} : { authorization: `Bearer ${presented}` });
      expect(a.status, name).toBe(401);
      texts.add(a.text);
    }
    expect([...texts]).toEqual(['{"error":"unauthorized"}']);
    const ok = await call(env.app, "GET", "/api/v1/links", { key: live });
    expect(ok.status, ok.text).toBe(200);
  });
});
