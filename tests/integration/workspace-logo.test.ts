import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../../lib/auth/users.ts";
import { db } from "../../lib/db/client.ts";
import { MAX_LOGO_BYTES } from "../../lib/workspaces/logo.ts";
import { makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// The workspace's QR logo route (app/w/[slug]/logo, lib/workspaces/logo.ts) over real HTTP against
// the built app: owners upload, members read, nobody else sees it; the type comes from the bytes,
// the size is bounded, and every logo answer says nosniff with a CSP that forbids script.

let env: ApiTestEnv;
const PASSWORD = "password1";
// the smallest valid PNG (1x1, transparent)
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><script>alert(1)</script></svg>');

/** A workspace with a signed-in owner and a signed-in plain member. */
async function workspaceWithPeople() {
  const { workspace } = await makeWorkspace("free", { keys: 0 });
  const owner = await createUser({ email: `owner-${workspace.slug}@example.test`, password: PASSWORD });
  const member = await createUser({ email: `member-${workspace.slug}@example.test`, password: PASSWORD });
  await db().membership.create({ data: { workspaceId: workspace.id, userId: owner.id, role: "owner" } });
  await db().membership.create({ data: { workspaceId: workspace.id, userId: member.id, role: "member" } });
  const [ownerCookie, memberCookie] = await Promise.all([
    signInCookie(env.app.url, owner.email, PASSWORD),
    signInCookie(env.app.url, member.email, PASSWORD),
  ]);
  return { slug: workspace.slug, ownerCookie, memberCookie };
}

const logoUrl = (slug: string) => `${env.app.url}/w/${slug}/logo`;
const put = (slug: string, cookie: string, body: Buffer, type = "image/png") =>
  fetch(logoUrl(slug), { method: "PUT", headers: { cookie, "content-type": type }, body: new Uint8Array(body) });
const remove = (slug: string, cookie: string) => fetch(logoUrl(slug), { method: "DELETE", headers: { cookie } });

// two workspaces, each with a signed-in owner and member (signing in hashes a password: made once)
let a: Awaited<ReturnType<typeof workspaceWithPeople>>;
let b: Awaited<ReturnType<typeof workspaceWithPeople>>;

beforeAll(async () => {
  env = await startApiTest();
  [a, b] = await Promise.all([workspaceWithPeople(), workspaceWithPeople()]);
}, 120_000);

afterAll(async () => {
  await env?.stop();
});

describe("workspace logo route", () => {
  it("an owner uploads a PNG; a member gets it back with its type, nosniff and a script-free CSP", async () => {
    const { slug, ownerCookie, memberCookie } = a;
    await remove(slug, ownerCookie);
    expect((await fetch(logoUrl(slug), { headers: { cookie: memberCookie } })).status).toBe(404);
    const saved = await put(slug, ownerCookie, PNG, "application/octet-stream");
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect(await saved.json()).toMatchObject({ contentType: "image/png" });
    const got = await fetch(logoUrl(slug), { headers: { cookie: memberCookie } });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("content-security-policy")).toMatch(/default-src 'none'.*sandbox/);
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it("an SVG is served as image/svg+xml under the CSP that keeps its script from running", async () => {
    const { slug, ownerCookie } = a;
    expect((await put(slug, ownerCookie, SVG, "image/png")).status).toBe(200);
    const got = await fetch(logoUrl(slug), { headers: { cookie: ownerCookie } });
    expect(got.headers.get("content-type")).toBe("image/svg+xml");
    expect(got.headers.get("content-security-policy")).toContain("sandbox");
    expect(got.headers.get("content-security-policy")).not.toMatch(/script-src/);
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a file that is no image is refused with 400, and one over the size limit with 413; neither is stored", async () => {
    const { slug, ownerCookie } = b;
    await remove(slug, ownerCookie);
    const notImage = await put(slug, ownerCookie, Buffer.from("<html><script>alert(1)</script></html>"), "image/svg+xml");
    expect(notImage.status).toBe(400);
    expect(await notImage.text()).toContain("PNG, JPEG or SVG");
    const big = Buffer.concat([PNG, Buffer.alloc(MAX_LOGO_BYTES)]);
    const tooBig = await put(slug, ownerCookie, big);
    expect(tooBig.status).toBe(413);
    expect(await tooBig.text()).toContain("256 KB");
    expect((await fetch(logoUrl(slug), { headers: { cookie: ownerCookie } })).status).toBe(404);
  });

  it("a plain member may not upload (403); another workspace's logo is not served to a non-member (404)", async () => {
    expect((await put(a.slug, a.memberCookie, PNG)).status).toBe(403);
    expect((await put(a.slug, a.ownerCookie, PNG)).status).toBe(200);
    const foreign = await fetch(logoUrl(a.slug), { headers: { cookie: b.ownerCookie } });
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get("content-type")).not.toBe("image/png");
    expect((await put(a.slug, b.ownerCookie, PNG)).status).toBe(404);
    expect((await fetch(logoUrl(a.slug))).status).toBe(401);
    // removing it: the owner only
    expect((await remove(a.slug, a.memberCookie)).status).toBe(403);
    expect((await remove(a.slug, a.ownerCookie)).status).toBe(204);
    expect((await fetch(logoUrl(a.slug), { headers: { cookie: a.ownerCookie } })).status).toBe(404);
  });
});
