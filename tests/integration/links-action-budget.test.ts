import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createUser } from "../../lib/auth/users.ts";
import { callAction } from "../support/actions.ts";
import { makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// The app's link-creating server actions (the link form's create, each chunk of the CSV import)
// spend a per-user budget of the workspace plan's API rate per window, counted in PostgreSQL like
// the API keys' budget. Plan "tiny" allows 3 per window; the window is an hour here so no test
// can straddle a window's end (no waiting, no sleeps).

let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest({ env: { RATE_LIMIT_WINDOW_SECONDS: "3600" } });
});
afterAll(async () => {
  await env?.stop();
});

const FILE = "app/w/[slug]/links/actions.ts";
type Result = { ok: true; data: unknown } | { ok: false; code?: string; error: string };
const RATE_LIMITED = { ok: false, code: "rate_limit", error: "Too many requests; try again in a minute." };

let n = 0;
async function member(workspaceId: number) {
  const email = `budget-${process.pid}-${++n}@example.test`;
  const user = await createUser({ email, password: "password1" });
  await db().membership.create({ data: { workspaceId, userId: user.id, role: "owner" } });
  return { id: user.id, cookie: await signInCookie(env.app.url, email, "password1") };
}

function createAction(slug: string, cookie: string, url: string) {
  return callAction<Result>(env.app.url, { page: `/w/${slug}/links/new`, file: FILE, name: "createLinkAction", cookie }, [slug, { url }]);
}
function importAction(slug: string, cookie: string, urls: string[]) {
  const rows = urls.map((url, i) => ({ row: i + 1, body: { url } }));
  return callAction<Result>(env.app.url, { page: `/w/${slug}/links/import`, file: FILE, name: "importChunkAction", cookie }, [
    slug,
    { rows, batch: { index: 1, count: 1 } },
  ]);
}
const linksOf = (workspaceId: number) => db().link.count({ where: { workspaceId } });

describe("link-creating server actions spend a per-user budget", () => {
  it("the 4th create in a window is refused with the rate-limit message; an import chunk counts as one and is refused too", async () => {
    const { workspace } = await makeWorkspace("tiny", { keys: 0 });
    const alice = await member(workspace.id);

    expect(await createAction(workspace.slug, alice.cookie, "https://example.com/1")).toMatchObject({ ok: true });
    // A chunk of 100 rows is one request of the budget.
    const chunk = await importAction(
      workspace.slug,
      alice.cookie,
      Array.from({ length: 100 }, (_, i) => `https://example.com/chunk/${i}`),
    );
    expect(chunk).toMatchObject({ ok: true });
    expect(await createAction(workspace.slug, alice.cookie, "https://example.com/2")).toMatchObject({ ok: true });
    expect(await linksOf(workspace.id)).toBe(102);

    expect(await createAction(workspace.slug, alice.cookie, "https://example.com/3")).toEqual(RATE_LIMITED);
    expect(await importAction(workspace.slug, alice.cookie, ["https://example.com/4"])).toEqual(RATE_LIMITED);
    expect(await linksOf(workspace.id)).toBe(102);

    // The budget is per user: another member of the workspace still has the whole budget.
    const bob = await member(workspace.id);
    expect(await createAction(workspace.slug, bob.cookie, "https://example.com/bob")).toMatchObject({ ok: true });
    expect(await linksOf(workspace.id)).toBe(103);
  });

  it("under parallel calls exactly the budget is allowed", async () => {
    const { workspace } = await makeWorkspace("tiny", { keys: 0 });
    const carol = await member(workspace.id);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0
          ? importAction(workspace.slug, carol.cookie, [`https://example.com/p${i}a`, `https://example.com/p${i}b`])
          : createAction(workspace.slug, carol.cookie, `https://example.com/p${i}`),
      ),
    );
    expect(answers.filter((a) => a.ok)).toHaveLength(3);
    expect(answers.filter((a) => !a.ok)).toEqual(Array.from({ length: 9 }, () => RATE_LIMITED));
    const imports = answers.filter((a, i) => a.ok && i % 3 === 0).length;
    expect(await linksOf(workspace.id)).toBe(3 + imports);
  });
});
