import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, makeDomain, makeWorkspace, startApiTest, TEST_APP_URL, type ApiTestEnv } from "../support/api.ts";

// The live short-code answer of the quick-create dialog and the link form
// (lib/links/code-availability.ts): the create's own rules, asked before the create. A code held by
// a link (on the default domain, shared by every workspace, as the create's 409 already tells),
// one of the app's own paths, a code the alias rule refuses, and a host that is not a domain of the
// asking workspace; and what the answer says agrees with what the create then does.

let env: ApiTestEnv;
beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

const host = new URL(TEST_APP_URL).host;

describe("code availability", () => {
  it("answers taken, free and invalid as the create then decides", async () => {
    const { codeAvailability, suggestFreeCode } = await import("../../lib/links/index.ts");
    const a = await makeWorkspace("team");
    const b = await makeWorkspace("team");
    const held = `held-${Date.now().toString(36)}`;
    expect((await client(env.app, a.key).post("/api/v1/links", { url: "https://example.com/held", alias: held })).status).toBe(201);

    expect(await codeAvailability(a.workspace, { domain: host, code: held })).toEqual({ status: "taken" });
    // the default domain is shared: another workspace cannot have the code either
    expect(await codeAvailability(b.workspace, { domain: host, code: held })).toEqual({ status: "taken" });
    // case-sensitive, like the codes themselves
    expect(await codeAvailability(b.workspace, { domain: host, code: held.toUpperCase() })).toEqual({ status: "free" });
    // the app's own paths and the links API's
    for (const reserved of ["api", "docs", "bulk", "healthz"])
      expect(await codeAvailability(b.workspace, { domain: host, code: reserved }), reserved).toEqual({ status: "taken" });
    // the alias rule, in its own words
    const bad = await codeAvailability(b.workspace, { domain: host, code: "a.b" });
    expect(bad).toEqual({ status: "invalid", message: "must be 1 to 40 characters: letters, digits, - and _" });
    // a custom domain: its codes are its own; another workspace learns nothing about them
    const custom = `go-${Date.now().toString(36)}.example.test`;
    await makeDomain(a.workspace.id, custom);
    expect(await codeAvailability(a.workspace, { domain: custom, code: held })).toEqual({ status: "free" });
    const onCustom = await client(env.app, a.key).post("/api/v1/links", { url: "https://example.com/c", alias: held, domain: custom });
    expect(onCustom.status).toBe(201);
    expect(await codeAvailability(a.workspace, { domain: custom, code: held })).toEqual({ status: "taken" });
    const foreign = await codeAvailability(b.workspace, { domain: custom, code: held });
    expect(foreign.status).toBe("invalid");
    expect(foreign.message).toMatch(/not a verified, active domain of this workspace/);

    const { code } = await suggestFreeCode(b.workspace, { domain: host });
    expect(code).toMatch(/^[A-Za-z0-9]{7}$/);
    expect(await codeAvailability(b.workspace, { domain: host, code })).toEqual({ status: "free" });
    const created = await client(env.app, b.key).post("/api/v1/links", { url: "https://example.com/drawn", alias: code });
    expect(created.status).toBe(201);
    expect(await codeAvailability(a.workspace, { domain: host, code })).toEqual({ status: "taken" });
  });
});
