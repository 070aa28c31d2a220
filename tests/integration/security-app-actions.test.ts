import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createEndpoint } from "../../lib/webhooks/index.ts";
import { createUser } from "../../lib/auth/users.ts";
import { makeDomain, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// Server actions attacked as a browser would call them (POST with the Next-Action header and the
// arguments as JSON): ids out of range, Prisma operators in place of ids, null and missing
// arguments, absurdly deep nesting. Each answers a refusal without internal text (no Prisma or
// zod messages, no stack), never a 500, and changes nothing; the ordinary call still works.

let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest({ env: { WEBHOOK_ALLOW_PRIVATE: "1" } });
});
afterAll(async () => {
  await env?.stop();
});

type Manifest = { node: Record<string, { filename: string; exportedName: string }> };

/** The id Next gave an exported server action (from the build's server reference manifest). */
function actionId(file: string, name: string): string {
  const dist = process.env.NEXT_DIST_DIR || ".next";
  const manifest = JSON.parse(fs.readFileSync(path.resolve(dist, "server/server-reference-manifest.json"), "utf8")) as Manifest;
  const hit = Object.entries(manifest.node).find(([, v]) => v.filename === file && v.exportedName === name);
  if (!hit) throw new Error(`no server action ${name} in ${file}`);
  return hit[0];
}

/** Calls an action like the browser's fetch does; `body` is the raw argument text. */
async function callAction(cookie: string, page: string, id: string, body: string) {
  const res = await fetch(env.app.url + page, {
    method: "POST",
    headers: { cookie, "next-action": id, "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" },
    body,
  });
  return { status: res.status, text: await res.text() };
}

const INTERNAL = /P20\d\d|prisma|Invalid `|invalid_type|ZodError|\bat [\w.<>]+ \(|node_modules/i;

async function signedInOwner() {
  const { workspace } = await makeWorkspace("team");
  const user = await createUser({ email: `owner-${workspace.slug}@example.test`, password: "password1" });
  await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "owner" } });
  return { workspace, cookie: await signInCookie(env.app.url, user.email, "password1") };
}

describe("server actions called with hostile arguments", () => {
  it("refuse huge ids, operators, nulls and deep nesting without internal text, and change nothing", async () => {
    const { workspace, cookie } = await signedInOwner();
    const endpoint = await createEndpoint(workspace.id, { url: "http://127.0.0.1:9/hook" });
    const domain = await makeDomain(workspace.id, `unverified-${workspace.slug}.example`, { verified: false });
    // An action is answered on a page that uses it (the endpoint page has the secret panel).
    const dev = `/w/${workspace.slug}/developers/${endpoint.id}`;
    const reveal = actionId("app/w/[slug]/developers/actions.ts", "revealSecretAction");
    const verify = actionId("app/w/[slug]/domains/actions.ts", "verifyDomainAction");
    const deep = "[".repeat(50_000) + "]".repeat(50_000);
    const attacks: [string, string, string][] = [
      [reveal, dev, JSON.stringify([workspace.slug, { id: 99999999999 }])],
      [reveal, dev, JSON.stringify([workspace.slug, { id: -1 }])],
      [reveal, dev, JSON.stringify([workspace.slug, { id: 1.5 }])],
      [reveal, dev, JSON.stringify([workspace.slug, { id: { gt: 0 } }])],
      [reveal, dev, JSON.stringify([workspace.slug, null])],
      [reveal, dev, JSON.stringify([null, null])],
      [reveal, dev, JSON.stringify([])],
      [reveal, dev, `[${JSON.stringify(workspace.slug)},${deep}]`],
      [verify, `/w/${workspace.slug}/domains`, JSON.stringify([workspace.slug, { id: { gt: 0 } }])],
      [verify, `/w/${workspace.slug}/domains`, JSON.stringify([workspace.slug, { id: 99999999999 }])],
    ];
    for (const [id, page, body] of attacks) {
      const a = await callAction(cookie, page, id, body);
      const what = body.slice(0, 80);
      expect(a.status, what).toBeLessThan(500);
      // A refusal as the action's result, or (no usable workspace slug) the not-found answer.
      const refused = /"ok":false,"code":"(validation|not_found)","error":"[^"]+"/.test(a.text);
      const notFound = a.status === 404 || a.text.includes("NEXT_HTTP_ERROR_FALLBACK;404");
      // Nesting too deep for Next's decoder is refused before Next (lib/http/action-guard.ts).
      const tooDeep = a.status === 400 && a.text.includes("nested too deeply");
      expect(refused || notFound || tooDeep, `${what}: ${a.status} ${a.text.slice(0, 200)}`).toBe(true);
      expect(a.text, what).not.toMatch(INTERNAL);
      expect(a.text, what).not.toContain("whsec_");
    }
    // The operator did not verify anything.
    expect((await db().domain.findUniqueOrThrow({ where: { id: domain.id } })).verifiedAt).toBeNull();

    // The ordinary call still works.
    const ok = await callAction(cookie, dev, reveal, JSON.stringify([workspace.slug, { id: endpoint.id }]));
    expect(ok.status).toBe(200);
    expect(ok.text).toContain(endpoint.secret);
  });
});
