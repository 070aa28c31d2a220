import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorSchemas } from "../../lib/api/schemas.ts";
import { createUser } from "../../lib/auth/users.ts";
import { db } from "../../lib/db/client.ts";
import { APP_LINK_FILE_MAX_BYTES, apiDomainSchema, listDomainsResponseSchema } from "../../lib/domains/schemas.ts";
import { createEndpoint } from "../../lib/webhooks/index.ts";
import { setActive as setWorkspaceActive } from "../../lib/workspaces/index.ts";
import { callAction } from "../support/actions.ts";
import { call, client, makeDomain, makeWorkspace, startApiTest, TEST_SHORT_DOMAIN, type ApiTestEnv } from "../support/api.ts";
import { startDnsServer, type DnsServer } from "../support/dns-server.ts";
import { signInCookie } from "../support/session.ts";
import type { Receiver } from "../support/https-receiver.ts";
import { eventually, startHttpsReceiver } from "./webhooks-helpers.ts";

// The domains endpoints and what a custom domain serves besides its links, against the built app,
// a real DNS server (the TXT check) and a real HTTPS webhook receiver on loopback: list, add,
// verify (domain.verified recorded and delivered), patch; the plan, cross-workspace and
// validation refusals; the app-link files, root and not-found redirects on a verified domain only,
// and edits reaching the redirect path without a restart. The app's edit action is owners' and
// admins' (domains.manage).

let env: ApiTestEnv;
let dns: DnsServer;
let receiver: Receiver;

beforeAll(async () => {
  dns = await startDnsServer();
  receiver = await startHttpsReceiver();
  env = await startApiTest({ env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: "1", WEBHOOK_TIMEOUT_MS: "3000" } });
});
afterAll(async () => {
  await env?.stop();
  await receiver?.stop();
  await dns?.stop();
});

let n = 0;
const uniqueHost = (label: string) => `${label}-${process.pid}-${++n}.example.test`;

/** A request to the short-link side with a Host header (a custom domain, or the default short domain). */
const visit = (host: string, path: string, method = "GET") => call(env.app, method, path, { headers: { host } });

const validation = (a: { status: number; body: unknown }) => {
  expect(a.status, JSON.stringify(a.body)).toBe(400);
  return errorSchemas.validation.parse(a.body);
};

const AASA = { applinks: { details: [{ appIDs: ["ABCDE12345.com.example.app"], components: [{ "/": "/app/*" }] }] } };
const ASSET_LINKS = [
  {
    relation: ["delegate_permission/common.handle_all_urls"],
    target: { namespace: "android_app", package_name: "com.example.app", sha256_cert_fingerprints: ["AA:BB"] },
  },
];

describe("domains API", () => {
  it("lists, adds (201, pending), verifies over DNS (200, verified tells the outcome) with exactly the domain object; domain.verified recorded once and delivered", async () => {
    const { workspace, key } = await makeWorkspace("team");
    await createEndpoint(workspace.id, { url: receiver.url("127.0.0.1", "/domains-api"), events: ["domain.verified"] });
    const api = client(env.app, key);
    expect((await api.get("/api/v1/domains")).body).toEqual({ domains: [] });

    const host = uniqueHost("go");
    const added = await api.post("/api/v1/domains", { host: host.toUpperCase() + "." });
    expect(added.status, added.text).toBe(201);
    const domain = apiDomainSchema.parse(added.body);
    expect(Object.keys(added.body)).toEqual([
      "id",
      "host",
      "verified",
      "active",
      "txtName",
      "txtValue",
      "appleAppSiteAssociation",
      "assetLinks",
      "rootUrl",
      "notFoundUrl",
    ]);
    expect(domain).toMatchObject({
      host,
      verified: false,
      active: true,
      txtName: `_linkhop.${host}`,
      appleAppSiteAssociation: null,
      assetLinks: null,
      rootUrl: null,
      notFoundUrl: null,
    });
    // Added twice in one workspace: 400 validation (the spec's errors have no conflict).
    validation(await api.post("/api/v1/domains", { host }));

    // No TXT record yet: 200 with verified false, nothing sent.
    const early = await api.post(`/api/v1/domains/${host}/verify`);
    expect(early.status).toBe(200);
    expect(early.body).toEqual(domain);
    dns.set(domain.txtName, "TXT", [domain.txtValue]);
    const verified = await api.post(`/api/v1/domains/${host}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ ...domain, verified: true });
    // Again: still verified, no second event.
    expect((await api.post(`/api/v1/domains/${host}/verify`)).body).toEqual({ ...domain, verified: true });

    expect(listDomainsResponseSchema.parse((await api.get("/api/v1/domains")).body)).toEqual({ domains: [{ ...domain, verified: true }] });
    expect((await api.get(`/api/v1/domains/${host}`)).body).toEqual({ ...domain, verified: true });

    const events = await db().webhookEvent.findMany({ where: { workspaceId: workspace.id, type: "domain.verified" } });
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].body).data).toEqual({ domain: { id: domain.id, host } });
    const [delivered] = await receiver.waitFor(1, 15_000);
    expect(delivered.headers["service-event"]).toBe("domain.verified");
    expect(JSON.parse(delivered.raw.toString()).data).toEqual({ domain: { id: domain.id, host } });
  });

  it("refuses: feature CustomDomains on free, another workspace's host (400 on add, 404 on every /domains/{host} path), bad input", async () => {
    const free = await makeWorkspace("free");
    const freeApi = client(env.app, free.key);
    expect(await freeApi.post("/api/v1/domains", { host: uniqueHost("free") })).toMatchObject({
      status: 403,
      body: { error: "feature", key: "CustomDomains", upgrade: true },
    });
    expect((await freeApi.get("/api/v1/domains")).body).toEqual({ domains: [] });
    // A domain kept from a plan that had the feature: listed, but neither verified nor edited.
    const kept = await makeDomain(free.workspace.id, uniqueHost("kept"), { verified: false });
    expect((await freeApi.get("/api/v1/domains")).body.domains).toHaveLength(1);
    for (const a of [
      await freeApi.post(`/api/v1/domains/${kept.host}/verify`),
      await freeApi.patch(`/api/v1/domains/${kept.host}`, { rootUrl: "https://example.com/" }),
    ]) {
      expect(a).toMatchObject({ status: 403, body: { error: "feature", key: "CustomDomains", upgrade: true } });
    }

    const owner = await makeWorkspace("team");
    const other = await makeWorkspace("team");
    const host = uniqueHost("owned");
    await makeDomain(owner.workspace.id, host);
    const otherApi = client(env.app, other.key);
    expect(validation(await otherApi.post("/api/v1/domains", { host })).messages).toEqual([
      `host: ${host} is already in use by another workspace.`,
    ]);
    for (const a of [
      await otherApi.get(`/api/v1/domains/${host}`),
      await otherApi.post(`/api/v1/domains/${host}/verify`),
      await otherApi.patch(`/api/v1/domains/${host}`, { rootUrl: "https://example.com/" }),
      await otherApi.patch(`/api/v1/domains/${uniqueHost("unknown")}`, {}),
    ]) {
      expect(a.status, a.text).toBe(404);
      expect(a.body).toEqual({ error: "not_found" });
    }
    expect((await otherApi.get("/api/v1/domains")).body).toEqual({ domains: [] });

    const api = client(env.app, owner.key);
    for (const body of [{}, { host: "https://x.example.test/" }, { host: "nodot" }, { host: uniqueHost("x"), extra: 1 }, { host: 5 }]) {
      validation(await api.post("/api/v1/domains", body));
    }
    const big = { k: "x".repeat(APP_LINK_FILE_MAX_BYTES) }; // over 64 KB once serialized
    for (const body of [
      { appleAppSiteAssociation: [] },
      { appleAppSiteAssociation: "{}" },
      { assetLinks: {} },
      { assetLinks: [1] },
      { appleAppSiteAssociation: big },
      { assetLinks: [big] },
      { rootUrl: "not a url" },
      { notFoundUrl: "ftp://example.com/" },
      { rootUrl: "https://blocked.example/home" }, // DESTINATION_DENYLIST
      { notFoundUrl: `http://${TEST_SHORT_DOMAIN}/abc` }, // a short link of this service
      { rootUrl: `https://${host}/` }, // the domain itself
      { other: 1 },
    ]) {
      validation(await api.patch(`/api/v1/domains/${host}`, body));
    }
    // A refused edit leaves nothing behind.
    expect((await api.get(`/api/v1/domains/${host}`)).body).toMatchObject({
      appleAppSiteAssociation: null,
      assetLinks: null,
      rootUrl: null,
      notFoundUrl: null,
    });
    // Check order: bad input (400) before the feature (403) before existence (404).
    validation(await freeApi.patch(`/api/v1/domains/${uniqueHost("nowhere")}`, { rootUrl: "nope" }));
    expect((await freeApi.patch(`/api/v1/domains/${uniqueHost("nowhere")}`, {})).status).toBe(403);
  });

  it("serves the app-link files, / and unknown codes on its verified domain only; edits reach the redirect path without a restart", async () => {
    const { workspace, key } = await makeWorkspace("team");
    const api = client(env.app, key);
    const host = uniqueHost("served");
    const pending = uniqueHost("pending");
    const bare = uniqueHost("bare");
    await makeDomain(workspace.id, host);
    await makeDomain(workspace.id, pending, { verified: false });
    await makeDomain(workspace.id, bare);
    const link = await api.post("/api/v1/links", { url: "https://example.com/destination", domain: host, alias: "promo" });
    expect(link.status, link.text).toBe(201);

    const settings = {
      appleAppSiteAssociation: AASA,
      assetLinks: ASSET_LINKS,
      rootUrl: "https://example.com/home",
      notFoundUrl: "https://example.com/missing",
    };
    for (const h of [host, pending]) {
      const patched = await api.patch(`/api/v1/domains/${h}`, settings);
      expect(patched.status, patched.text).toBe(200);
      expect(apiDomainSchema.parse(patched.body)).toMatchObject({ host: h, ...settings });
    }

    // The domain table of the app process is reloaded by the Domain notification.
    const aasa = await eventually(async () => {
      const a = await visit(host, "/.well-known/apple-app-site-association");
      return a.status === 200 && a;
    });
    expect(aasa.headers["content-type"]).toBe("application/json");
    expect(aasa.body).toEqual(AASA);
    const assetLinks = await visit(host, "/.well-known/assetlinks.json");
    expect(assetLinks).toMatchObject({ status: 200, body: ASSET_LINKS });
    expect(assetLinks.headers["content-type"]).toBe("application/json");
    expect(await visit(host, "/.well-known/assetlinks.json", "HEAD")).toMatchObject({ status: 200, text: "" });
    expect(await visit(host, "/")).toMatchObject({ status: 302, headers: { location: "https://example.com/home" } });
    expect(await visit(host, "/nosuchcode")).toMatchObject({ status: 302, headers: { location: "https://example.com/missing" } });
    // Links themselves are unchanged.
    expect(await visit(host, "/promo")).toMatchObject({ status: 302, headers: { location: "https://example.com/destination" } });

    // Not on the default short domain, not on a pending domain, not on another domain.
    for (const h of [TEST_SHORT_DOMAIN, pending, bare]) {
      for (const path of ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"]) {
        expect((await visit(h, path)).status, `${h}${path}`).toBe(404);
      }
      expect((await visit(h, "/")).headers.location ?? "").not.toMatch(/example\.com/);
    }
    expect(await visit(bare, "/nosuchcode")).toMatchObject({ status: 404 });
    expect(await visit(TEST_SHORT_DOMAIN, "/nosuchcode")).toMatchObject({ status: 404 });

    // Edits and clears show without a restart.
    const edited = await api.patch(`/api/v1/domains/${host}`, { appleAppSiteAssociation: null, rootUrl: "https://example.com/new-home" });
    expect(edited.body).toMatchObject({ appleAppSiteAssociation: null, assetLinks: ASSET_LINKS, rootUrl: "https://example.com/new-home" });
    await eventually(async () => (await visit(host, "/")).headers.location === "https://example.com/new-home");
    expect((await visit(host, "/.well-known/apple-app-site-association")).status).toBe(404);
    await api.patch(`/api/v1/domains/${host}`, { notFoundUrl: null });
    await eventually(async () => (await visit(host, "/nosuchcode")).status === 404);
    expect((await visit(host, "/.well-known/assetlinks.json")).status).toBe(200);

    // A switched-off workspace serves none of it; switched on again, all of it.
    await setWorkspaceActive(workspace.slug, false);
    await eventually(async () => (await visit(host, "/.well-known/assetlinks.json")).status === 404);
    expect((await visit(host, "/")).status).toBe(404);
    await setWorkspaceActive(workspace.slug, true);
    await eventually(async () => (await visit(host, "/")).headers.location === "https://example.com/new-home");
  });

  it("the app's edit action: owners and admins only, the same rules as the API", async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    const host = uniqueHost("app");
    await makeDomain(workspace.id, host);
    const signIn = async (role: "member" | "admin") => {
      const email = `domains-${role}-${process.pid}-${++n}@example.test`;
      const user = await createUser({ email, password: "password1" });
      await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role } });
      return signInCookie(env.app.url, email, "password1");
    };
    const save = (cookie: string, fields: Record<string, string>) =>
      callAction<{ ok: boolean; code?: string; fields?: Record<string, string> }>(
        env.app.url,
        { page: `/w/${workspace.slug}/domains`, file: "app/w/[slug]/domains/actions.ts", name: "updateDomainSettingsAction", cookie },
        [workspace.slug, { host, appleAppSiteAssociation: "", assetLinks: "", rootUrl: "", notFoundUrl: "", ...fields }],
      );
    const member = await signIn("member");
    expect(await save(member, { rootUrl: "https://example.com/" })).toMatchObject({ ok: false, code: "forbidden" });
    const admin = await signIn("admin");
    const bad = await save(admin, { appleAppSiteAssociation: "{not json", assetLinks: "{}" });
    expect(bad).toMatchObject({ ok: false, code: "validation" });
    expect(Object.keys(bad.fields ?? {}).sort()).toEqual(["appleAppSiteAssociation", "assetLinks"]);
    expect(await save(admin, { appleAppSiteAssociation: JSON.stringify(AASA), rootUrl: "example.com/home" })).toMatchObject({ ok: true });
    expect(await db().domain.findUniqueOrThrow({ where: { verifiedHost: host } })).toMatchObject({
      appleAppSiteAssociation: AASA,
      assetLinks: null,
      rootUrl: "https://example.com/home",
      notFoundUrl: null,
    });
  });
});
