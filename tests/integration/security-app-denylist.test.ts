import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createUser } from "../../lib/auth/users.ts";
import { startApp } from "../support/app.ts";
import { call, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { eventually } from "../support/eventually.ts";
import { signInCookie } from "../support/session.ts";

// DESTINATION_DENYLIST is retroactive: links saved before a host was added to it stop redirecting
// once the app restarts with the new list (a small 403 page, no redirect, no fallback), cannot be
// edited without changing the denylisted destination, and their page in the app says why.

let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest({ env: { DESTINATION_DENYLIST: "" } });
});
afterAll(async () => {
  await env?.stop();
});

/** A visitor on the short domain. */
const hop = (app: { port: number }, method: string, code: string) => call(app, method, `/${code}`, { headers: { host: "localhost:3000" } });

describe("denylist added after links were made", () => {
  it("blocks their redirects, refuses edits that keep the destination, and the link page says why", async () => {
    const { workspace, key } = await makeWorkspace("team");
    const make = async (body: object) => {
      const a = await call(env.app, "POST", "/api/v1/links", { key, json: body });
      expect(a.status, a.text).toBe(201);
      return a.body as { id: number; code: string };
    };
    // Saved while the hosts were allowed.
    const direct = await make({ url: "https://www.evil.test/a" });
    const viaFallback = await make({ url: "https://example.com/b", fallbackUrl: "https://evil.test/fb", maxClicks: 1 });
    const viaGeo = await make({ url: "https://example.com/c", targeting: { geo: { DE: "https://evil.test/de" } } });
    const fine = await make({ url: "https://example.com/fine" });
    expect((await hop(env.app, "GET", direct.code)).status).toBe(302);

    // The operator adds the host and restarts.
    await env.app.stop();
    const app = await startApp(env.databaseUrl, {
      PLANS_FILE: env.plansFile,
      APP_URL: "http://localhost:3000",
      DESTINATION_DENYLIST: "evil.test",
    });
    env.apps[0] = env.app = app;

    for (const link of [direct, viaFallback, viaGeo]) {
      for (const method of ["GET", "HEAD"]) {
        const a = await hop(app, method, link.code);
        expect(a.status, `${method} ${link.code}`).toBe(403);
        expect(a.headers.location).toBeUndefined();
        if (method === "GET") expect(a.text).toContain("Link blocked");
      }
    }
    // A capped link with a denylisted fallback is not sent to the fallback either.
    expect((await hop(app, "GET", viaFallback.code)).headers.location).toBeUndefined();
    const ok = await hop(app, "GET", fine.code);
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe("https://example.com/fine");

    // An edit that keeps the denylisted destination is refused, with a message naming the field.
    const kept = await call(app, "PATCH", `/api/v1/links/${direct.code}`, { key, json: { title: "still evil" } });
    expect(kept.status).toBe(400);
    expect(kept.body.error).toBe("validation");
    expect(kept.body.messages.join(" ")).toMatch(/^url: the host www\.evil\.test is not allowed/);
    const geoKept = await call(app, "PATCH", `/api/v1/links/${viaGeo.code}`, { key, json: { url: "https://example.com/c2" } });
    expect(geoKept.status).toBe(400);
    expect(geoKept.body.messages.join(" ")).toContain("targeting.geo.DE");
    expect((await db().link.findUniqueOrThrow({ where: { id: direct.id } })).title).not.toBe("still evil");

    // The link page says why (the owner signs in to the app).
    const owner = await createUser({ email: `owner-${workspace.slug}@example.test`, password: "password1" });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: owner.id, role: "owner" } });
    const cookie = await signInCookie(app.url, owner.email, "password1");
    const page = await fetch(`${app.url}/w/${workspace.slug}/links/${direct.id}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("This link is blocked");
    expect(html).toContain("www.evil.test");
    const finePage = await (await fetch(`${app.url}/w/${workspace.slug}/links/${fine.id}`, { headers: { cookie } })).text();
    expect(finePage).not.toContain("This link is blocked");

    // Changing the destination is the legitimate way out: the link redirects again.
    const fixed = await call(app, "PATCH", `/api/v1/links/${direct.code}`, {
      key,
      json: { url: "https://example.com/fixed", title: "fixed" },
    });
    expect(fixed.status, fixed.text).toBe(200);
    const after = await eventually(
      async () => {
        const a = await hop(app, "GET", direct.code);
        return a.status === 302 ? a : false;
      },
      10_000,
      "the edited link to redirect",
    );
    expect(after.headers.location).toBe("https://example.com/fixed");
    // Clearing the denylisted targeting works too.
    expect((await call(app, "PATCH", `/api/v1/links/${viaGeo.code}`, { key, json: { targeting: null } })).status).toBe(200);
  });
});
