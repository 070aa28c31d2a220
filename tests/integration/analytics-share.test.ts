import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickEvent } from "../../lib/analytics/model.ts";
import { PostgresClickStore } from "../../lib/analytics/store/click-store.ts";
import { createUser } from "../../lib/auth/users.ts";
import { db } from "../../lib/db/client.ts";
import { callAction } from "../support/actions.ts";
import { call, client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// Campaign analytics over real HTTP: the filters added for the page's panels (utm_source,
// utm_medium, utm_campaign, destination, language) on GET /api/v1/analytics and its export (400 on
// bad input, the right figures), and saved views' read-only share links: a member saves, only an
// owner or admin shares, the token is stored only as its SHA-256, the signed-out share page shows
// the view's figures alone (its query string cannot widen them, another workspace never appears),
// and a revoked or unknown token answers 404.

let env: ApiTestEnv;
let pool: pg.Pool;
type Ws = Awaited<ReturnType<typeof setUpWorkspace>>;
let a: Ws;
let b: Ws;

async function setUpWorkspace(tag: string) {
  const { workspace, key } = await makeWorkspace("team");
  const api = client(env.app, key);
  const link = async (url: string) => (await api.post("/api/v1/links", { url })).body as { id: number; code: string };
  const news = await link(`https://example.com/${tag}/a?utm_source=news&utm_medium=email&utm_campaign=spring%20sale`);
  const ads = await link(`https://example.com/${tag}/b?utm_source=ads&utm_medium=cpc&utm_campaign=spring+sale`);
  const plain = await link(`https://example.com/${tag}/c`);
  const at = Date.now() - 3_600_000;
  const ev = (l: { id: number }, visitor: number, language: string | null, destination: string): ClickEvent => ({
    at,
    workspaceId: workspace.id,
    linkId: l.id,
    domain: "localhost:3000",
    target: "destination",
    country: "US",
    city: null,
    referrerHost: null,
    referrerUrl: null,
    device: "desktop",
    browser: "Chrome",
    os: "macOS",
    bot: false,
    qr: false,
    visitor: String(visitor),
    destination,
    language,
  });
  // news: 3 clicks (de, de, en); ads: 2 (en, none); plain: 1 (fr)
  await new PostgresClickStore(pool).record([
    ev(news, 1, "de", `https://example.com/${tag}/a`),
    ev(news, 2, "de", `https://example.com/${tag}/a`),
    ev(news, 3, "en", `https://example.com/${tag}/a`),
    ev(ads, 4, "en", `https://example.com/${tag}/b`),
    ev(ads, 5, null, `https://example.com/${tag}/b`),
    ev(plain, 6, "fr", `https://example.com/${tag}/c`),
  ]);
  const person = async (role: "owner" | "admin" | "member") => {
    const user = await createUser({ email: `${role}-${workspace.slug}@example.test`, password: "password1" });
    if (role !== "owner") await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role } });
    else await db().membership.updateMany({ where: { workspaceId: workspace.id }, data: { userId: user.id } });
    return signInCookie(env.app.url, user.email, "password1");
  };
  return { workspace, api, links: { news, ads, plain }, owner: await person("owner"), member: await person("member") };
}

beforeAll(async () => {
  env = await startApiTest();
  pool = new pg.Pool({ connectionString: env.databaseUrl, max: 2 });
  a = await setUpWorkspace("a");
  b = await setUpWorkspace("b");
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await env?.stop();
});

const ACTIONS = "app/w/[slug]/analytics/actions.ts";
type Result<T> = { ok: true; data: T } | { ok: false; error: string };
const act = <T>(w: Ws, cookie: string, name: string, args: unknown[]) =>
  callAction<Result<T>>(env.app.url, { page: `/w/${w.workspace.slug}/analytics`, file: ACTIONS, name, cookie }, [
    w.workspace.slug,
    ...args,
  ]);

const count = async (w: Ws, query: string) => {
  const r = await w.api.get(`/api/v1/analytics?interval=7d&${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body.clicks as number;
};
const totalOnPage = (html: string) => /data-testid="total-clicks"[^>]*>([^<]*)</.exec(html)?.[1];

describe("the new analytics filters", () => {
  it("answer 400 validation for bad input on the API and the export", async () => {
    for (const query of ["utm_source=", "utm_campaign=" + "x".repeat(201), "language=e1", "language=", `destination=${"x".repeat(2049)}`]) {
      for (const path of ["/api/v1/analytics", "/api/v1/analytics/export"]) {
        const r = await a.api.get(`${path}?${query}`);
        expect(r.status, `${path}?${query.slice(0, 30)}`).toBe(400);
        expect(r.body.error).toBe("validation");
      }
    }
  });

  it("filter by the links' UTM values (decoded), the destination and the language; the export follows", async () => {
    expect(await count(a, "")).toBe(6);
    expect(await count(a, "utm_source=news")).toBe(3);
    expect(await count(a, "utm_medium=cpc")).toBe(2);
    // "spring%20sale" and "spring+sale" are the same decoded campaign
    expect(await count(a, "utm_campaign=spring%20sale")).toBe(5);
    expect(await count(a, "utm_source=nope")).toBe(0);
    expect(await count(a, `destination=${encodeURIComponent("https://example.com/a/b")}`)).toBe(2);
    expect(await count(a, "language=DE")).toBe(2);
    expect(await count(a, "language=unknown")).toBe(1);
    expect(await count(a, "language=en&utm_source=ads")).toBe(1);
    const csv = await a.api.get("/api/v1/analytics/export?interval=7d&utm_source=news&language=de");
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split("\n")).toHaveLength(3); // header + 2 events
  });
});

describe("saved views and share links", () => {
  let token = "";
  let viewId = 0;

  it("a member saves a view but may not share it; an owner shares it; only the token's hash is stored", async () => {
    const saved = await act<{ id: number }>(a, a.member, "saveViewAction", ["News", { utm_source: "news", interval: "7d" }]);
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    viewId = (saved as { data: { id: number } }).data.id;
    const refused = await act(a, a.member, "shareViewAction", [viewId]);
    expect(refused).toEqual({ ok: false, error: "Only owners and admins can share analytics views." });
    // another workspace's owner cannot share it either (not their view)
    expect((await act(b, b.owner, "shareViewAction", [viewId])).ok).toBe(false);
    const shared = await act<{ url: string }>(a, a.owner, "shareViewAction", [viewId]);
    expect(shared.ok, JSON.stringify(shared)).toBe(true);
    const url = (shared as { data: { url: string } }).data.url;
    expect(url).toMatch(/^http:\/\/localhost:3000\/share\/analytics\/[A-Za-z0-9_-]{32}$/);
    token = url.split("/").pop()!;
    const row = await db().savedAnalyticsView.findUniqueOrThrow({ where: { id: viewId } });
    expect(row.shareTokenHash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(token);
    // bad names are refused
    const bad = await act(a, a.member, "saveViewAction", ["", {}]);
    expect(bad.ok).toBe(false);
    const badParams = await act(a, a.member, "saveViewAction", ["Bad", { language: "e1" }]);
    expect(badParams.ok).toBe(false);
  });

  it("the share page needs no sign-in, shows only the view's figures, cannot be widened, never shows another workspace", async () => {
    const page = await call(env.app, "GET", `/share/analytics/${token}`);
    expect(page.status).toBe(200);
    expect(totalOnPage(page.text)).toBe("3");
    expect(page.text).toMatch(/<meta name="robots" content="noindex, nofollow"/);
    expect(page.text).not.toContain(`/w/${a.workspace.slug}`);
    expect(page.text).not.toContain(b.links.news.code);
    expect(page.text).not.toContain(a.links.plain.code); // the view's links only
    for (const widen of ["?utm_source=ads", "?interval=all&bots=include", `?link=${a.links.plain.code}`, "?all=links"]) {
      const w = await call(env.app, "GET", `/share/analytics/${token}${widen}`);
      expect(w.status).toBe(200);
      expect(totalOnPage(w.text), widen).toBe("3");
    }
  });

  it("a revoked or unknown token answers 404", async () => {
    expect((await call(env.app, "GET", `/share/analytics/${"A".repeat(32)}`)).status).toBe(404);
    expect((await call(env.app, "GET", `/share/analytics/short`)).status).toBe(404);
    expect((await act(a, a.member, "revokeShareAction", [viewId])).ok).toBe(false);
    expect((await act(a, a.owner, "revokeShareAction", [viewId])).ok).toBe(true);
    expect((await call(env.app, "GET", `/share/analytics/${token}`)).status).toBe(404);
  });
});
