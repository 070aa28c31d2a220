import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passwordHashCount } from "../../lib/auth/password.ts";
import { db } from "../../lib/db/client.ts";
import { BULK_MAX_PASSWORD_ROWS } from "../../lib/links/schemas.ts";
import { bulkCreateLinks, createLink, createLinkCountingRate } from "../../lib/links/create.ts";
import type { LinkWorkspace } from "../../lib/links/lookup.ts";
import { updateLink } from "../../lib/links/update.ts";
import { client, makeDomain, makeWorkspace, rateHeaders, startApiTest, type ApiTestEnv } from "../support/api.ts";

// Passwords are hashed (scrypt, deliberately slow) only for rows that passed every cheap check:
// validation, features, a free alias and the monthly allowance. The bulk service is called in
// this process (against the test database) so the hashes can be counted (passwordHashCount); the
// limit on hashing per request is also checked over HTTP for the API's answer.

let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest();
});
afterAll(async () => {
  await env?.stop();
});

const PASSWORD = "p".repeat(200);

/** Hashes made while `fn` runs (this process only). */
async function hashesDuring<T>(fn: () => Promise<T>): Promise<{ value: T; hashes: number }> {
  const before = passwordHashCount();
  const value = await fn();
  return { value, hashes: passwordHashCount() - before };
}

const linksOf = (ws: LinkWorkspace) => db().link.count({ where: { workspaceId: ws.id } });
const usedOf = async (ws: LinkWorkspace) => (await db().monthlyUsage.findFirst({ where: { workspaceId: ws.id } }))?.created ?? 0;

describe("bulk create hashes passwords only after the cheap checks", () => {
  it("1,000 rows with passwords and an alias already taken: every row 409, no password hashed", { timeout: 180_000 }, async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    await createLink(workspace, { url: "https://example.com/first", alias: "taken-hash" });
    const rows = Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/${i}`, alias: "taken-hash", password: PASSWORD }));

    const { value: results, hashes } = await hashesDuring(() => bulkCreateLinks(workspace, rows));

    expect(hashes).toBe(0);
    expect(results).toHaveLength(1000);
    expect(results.every((r) => r.status === 409 && "error" in r && r.error.code === "alias_taken")).toBe(true);
    expect(await linksOf(workspace)).toBe(1);
    expect(await usedOf(workspace)).toBe(1);
  });

  it("hashes only the rows that are created: invalid, taken and duplicate rows hash nothing", async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    await createLink(workspace, { url: "https://example.com/first", alias: "taken-mixed" });
    const rows = [
      { url: "https://example.com/a", alias: "fresh-mixed", password: PASSWORD }, // created, hashed
      { url: "https://example.com/b", alias: "taken-mixed", password: PASSWORD }, // 409
      { url: "ftp://example.com/c", password: PASSWORD }, // 400
      { url: "https://example.com/d", alias: "fresh-mixed", password: PASSWORD }, // 409: row 0 took it
      { url: "https://example.com/e", domain: "not-ours.example", password: PASSWORD }, // 400
    ];
    const { value: results, hashes } = await hashesDuring(() => bulkCreateLinks(workspace, rows));
    expect(results.map((r) => r.status)).toEqual([201, 409, 400, 409, 400]);
    expect(hashes).toBe(1);
    const created = await db().link.findFirstOrThrow({ where: { workspaceId: workspace.id, code: "fresh-mixed" } });
    expect(created.passwordHash).toMatch(/^scrypt\$/);
  });

  it("rows past the monthly allowance fail with the quota error and hash nothing", async () => {
    const { workspace } = await makeWorkspace("quota3", { keys: 0 });
    await createLink(workspace, { url: "https://example.com/first" });
    const rows = Array.from({ length: 5 }, (_, i) => ({ url: `https://example.com/q${i}`, password: PASSWORD }));

    const { value: results, hashes } = await hashesDuring(() => bulkCreateLinks(workspace, rows));
    expect(results.map((r) => r.status)).toEqual([201, 201, 403, 403, 403]);
    for (const r of results.slice(2)) expect("error" in r && r.error.extra).toEqual({ key: "MaxLinks", limit: 3, current: 3 });
    expect(hashes).toBe(2);

    // Used up: a whole request of password rows hashes nothing, and a single create neither.
    const again = await hashesDuring(() => bulkCreateLinks(workspace, rows));
    expect(again.value.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect(again.hashes).toBe(0);
    const single = await hashesDuring(() =>
      createLink(workspace, { url: "https://example.com/one", password: PASSWORD }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(single.value).toMatchObject({ code: "quota", extra: { key: "MaxLinks", limit: 3, current: 3 } });
    expect(single.hashes).toBe(0);
    expect(await linksOf(workspace)).toBe(3);
  });

  it("a single create with a taken alias answers 409 without hashing its password", async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    await createLink(workspace, { url: "https://example.com/first", alias: "taken-single" });
    const single = await hashesDuring(() =>
      createLink(workspace, { url: "https://example.com/two", alias: "taken-single", password: PASSWORD }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(single.value).toMatchObject({ code: "alias_taken", extra: { alias: "taken-single" } });
    expect(single.hashes).toBe(0);
  });
});

describe("a single create with a password is pre-checked before its hash (lib/links/create-sql.ts precheckStatement)", () => {
  it("a destination on a verified custom domain answers 400 without hashing; another domain's link is still made", async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    const host = `go-${workspace.id}.hashing.test`;
    await makeDomain((await makeWorkspace("team", { keys: 0 })).workspace.id, host);
    const refused = await hashesDuring(() =>
      createLink(workspace, { url: `https://${host}/x`, password: PASSWORD }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(refused.value).toMatchObject({ code: "validation", issues: [{ path: "url" }] });
    expect(refused.hashes).toBe(0);
    const made = await hashesDuring(() => createLink(workspace, { url: "https://example.com/fine", password: PASSWORD }));
    expect(made.value.passwordHash).toMatch(/^scrypt\$/);
    expect(made.hashes).toBe(1);
    expect(await linksOf(workspace)).toBe(1);
    expect(await usedOf(workspace)).toBe(1);
  });

  it("counts an API request once in the pre-check: within the limit one hash and the link, over it no hash and nothing written", async () => {
    const { workspace, keys } = await makeWorkspace("team");
    const rate = { keyId: keys[0].id, plan: workspace.plan, limit: 1, windowSeconds: 3600 };
    const counted = await createLinkCountingRate(workspace, { url: "https://example.com/rated", password: PASSWORD }, rate);
    expect(counted?.rateCount).toBe(1);
    const made = await hashesDuring(() => counted!.link());
    expect(made.hashes).toBe(1);
    expect(made.value.code).toBeTruthy();

    const over = await hashesDuring(async () => {
      const c = await createLinkCountingRate(workspace, { url: "https://example.com/over", password: PASSWORD }, rate);
      return {
        rateCount: c?.rateCount,
        answer: await c!.link().then(
          () => "created",
          () => "refused",
        ),
      };
    });
    expect(over.value).toEqual({ rateCount: 2, answer: "refused" });
    expect(over.hashes).toBe(0);
    expect(await linksOf(workspace)).toBe(1);
    expect(await usedOf(workspace)).toBe(1);
    expect((await db().rateWindow.findUnique({ where: { keyId: keys[0].id } }))?.count).toBe(2);
  });

  it("a refusal found by the pre-check is answered after the count: a taken alias, counted once, nothing hashed", async () => {
    const { workspace, keys } = await makeWorkspace("team");
    await createLink(workspace, { url: "https://example.com/first", alias: "taken-counted" });
    const rate = { keyId: keys[0].id, plan: workspace.plan, limit: 10, windowSeconds: 3600 };
    const refused = await hashesDuring(async () => {
      const c = await createLinkCountingRate(workspace, { url: "https://example.com/b", alias: "taken-counted", password: PASSWORD }, rate);
      return {
        rateCount: c?.rateCount,
        error: await c!.link().then(
          () => null,
          (e: unknown) => e,
        ),
      };
    });
    expect(refused.value).toMatchObject({ rateCount: 1, error: { code: "alias_taken" } });
    expect(refused.hashes).toBe(0);
    expect(await linksOf(workspace)).toBe(1);
  });
});

describe(`a bulk request hashes at most ${BULK_MAX_PASSWORD_ROWS} passwords`, () => {
  const passwordRows = (n: number, tag: string) =>
    Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${tag}/${i}`, password: PASSWORD }));

  it("more rows to hash than the limit: refused whole with 400, nothing created, nothing hashed, no allowance spent", async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    const rows = [{ url: "https://example.com/plain" }, ...passwordRows(BULK_MAX_PASSWORD_ROWS + 1, "over")];
    const { value: refused, hashes } = await hashesDuring(() =>
      bulkCreateLinks(workspace, rows).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(refused).toMatchObject({ code: "validation" });
    expect((refused as Error).message).toContain(`at most ${BULK_MAX_PASSWORD_ROWS} links with a password`);
    expect(hashes).toBe(0);
    expect(await linksOf(workspace)).toBe(0);
    expect(await usedOf(workspace)).toBe(0);
  });

  it("over HTTP: 400 validation naming the limit, counted as one request, nothing created", async () => {
    const { workspace, key } = await makeWorkspace("team");
    const api = client(env.app, key!);
    const a = await api.post("/api/v1/links/bulk", { links: passwordRows(BULK_MAX_PASSWORD_ROWS + 1, "http") });
    expect(a.status).toBe(400);
    expect(a.body).toEqual({
      error: "validation",
      messages: [
        `links: at most ${BULK_MAX_PASSWORD_ROWS} links with a password may be created per request (this one has ${BULK_MAX_PASSWORD_ROWS + 1}); send the rest in another request`,
      ],
    });
    expect(rateHeaders(a)).toEqual({ limit: "600", remaining: "599" });
    expect(await linksOf(workspace)).toBe(0);
    expect(await usedOf(workspace)).toBe(0);
  });

  it(
    "rows refused for a cheap reason do not count: the limit's worth of passwords plus taken aliases is accepted",
    { timeout: 180_000 },
    async () => {
      const { workspace } = await makeWorkspace("team", { keys: 0 });
      await createLink(workspace, { url: "https://example.com/first", alias: "taken-limit" });
      const taken = Array.from({ length: 50 }, (_, i) => ({ url: `https://example.com/t${i}`, alias: "taken-limit", password: PASSWORD }));
      const rows = [...taken, ...passwordRows(BULK_MAX_PASSWORD_ROWS, "limit")];
      const { value: results, hashes } = await hashesDuring(() => bulkCreateLinks(workspace, rows));
      expect(results.filter((r) => r.status === 201)).toHaveLength(BULK_MAX_PASSWORD_ROWS);
      expect(results.filter((r) => r.status === 409)).toHaveLength(50);
      expect(hashes).toBe(BULK_MAX_PASSWORD_ROWS);
    },
  );
});

describe("an edit hashes a new password only when the edit can go through", () => {
  it("an unknown link, another workspace's link or a taken alias is refused without hashing; a good edit hashes once", async () => {
    const { workspace } = await makeWorkspace("team", { keys: 0 });
    const { workspace: other } = await makeWorkspace("team", { keys: 0 });
    const mine = await createLink(workspace, { url: "https://example.com/mine", alias: "edit-mine" });
    await createLink(workspace, { url: "https://example.com/held", alias: "edit-held" });
    await createLink(other, { url: "https://example.com/theirs", alias: "edit-theirs" });

    for (const [ref, patch, code] of [
      [{ code: "edit-nobody" }, { password: PASSWORD }, "not_found"],
      [{ code: "edit-theirs" }, { password: PASSWORD }, "not_found"],
      [{ id: mine.id }, { password: PASSWORD, alias: "edit-held" }, "alias_taken"],
      [{ id: mine.id }, { password: PASSWORD, alias: "api" }, "alias_taken"],
    ] as const) {
      const refused = await hashesDuring(() => updateLink(workspace, ref, patch).catch((e: unknown) => e));
      expect(refused.value).toMatchObject({ code });
      expect(refused.hashes).toBe(0);
    }

    const ok = await hashesDuring(() => updateLink(workspace, { id: mine.id }, { password: PASSWORD, alias: "edit-renamed" }));
    expect(ok.hashes).toBe(1);
    expect((await db().link.findUniqueOrThrow({ where: { id: mine.id } })).passwordHash).toMatch(/^scrypt\$/);
  });
});
