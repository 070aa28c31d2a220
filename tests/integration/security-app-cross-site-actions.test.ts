import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createUser } from "../../lib/auth/users.ts";
import { actionId, callAction } from "../support/actions.ts";
import { makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// A server action posted with the Origin of another site (a forged call, or a script's junk):
// server.ts refuses it before Next sees it (lib/http/action-guard.ts), with a 403, a short body and
// one warning line. Next would answer 500 and log three error lines, one with a stack, for each.
// A call from the app's own origin still reaches the action.

let env: ApiTestEnv;

beforeAll(async () => {
  // no SMTP_URL: the invitation mail goes to the log, which tells when earlier lines are all there
  env = await startApiTest({ env: { SMTP_URL: "" } });
});
afterAll(async () => {
  await env?.stop();
});

const INVITE = { file: "app/w/[slug]/members/actions.ts", name: "inviteAction" };

async function post(path: string, headers: Record<string, string>, body: string | FormData) {
  const res = await fetch(`${env.app.url}${path}`, { method: "POST", redirect: "manual", headers, body });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe("a server action from another site", () => {
  it("gets a 403 with one warning line, anonymous or with the victim's cookie; the app's own origin still works", async () => {
    const { workspace } = await makeWorkspace("team");
    const user = await createUser({ email: `owner-${workspace.slug}@example.test`, password: "password1" });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "owner" } });
    const cookie = await signInCookie(env.app.url, user.email, "password1");
    const id = actionId(INVITE.file, INVITE.name);
    const members = `/w/${workspace.slug}/members`;
    const args = (email: string) => JSON.stringify([workspace.slug, { email, role: "member" }]);
    const json = { "next-action": id, "content-type": "text/plain;charset=UTF-8", accept: "text/x-component" };
    const multipart = new FormData();
    multipart.append("0", args("multipart@example.test"));
    // a form posted without JavaScript: no Next-Action header, the action's id in a hidden field
    const noScript = new FormData();
    noScript.append(`$ACTION_ID_${id}`, "");
    noScript.append("email", "no-script@example.test");

    const records = env.app.records().length;
    const logs = env.app.logs().length;
    const forged = [
      post("/login", { ...json, origin: "https://evil.example" }, args("anonymous@example.test")),
      post(members, { ...json, origin: "https://evil.example", cookie }, args("forged@example.test")),
      post(members, { "next-action": id, origin: "https://evil.example", cookie }, multipart),
      post(members, { origin: "https://evil.example", cookie }, noScript),
      post("/login", { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" }, "email=a%40b.test"),
      // an opaque origin (a sandboxed frame), the app's host on another port, not an origin at all
      post(members, { ...json, origin: "null", cookie }, args("null@example.test")),
      post(members, { ...json, origin: `http://127.0.0.1:${env.app.port + 1}`, cookie }, args("port@example.test")),
      post(members, { ...json, origin: "garbage", cookie }, args("garbage@example.test")),
    ];
    for (const answer of await Promise.all(forged)) {
      expect(answer.status, answer.text).toBe(403);
      expect(answer.type).toMatch(/^text\/plain/);
      expect(answer.text.length).toBeLessThan(200);
    }
    expect(await db().invitation.count({ where: { workspaceId: workspace.id } })).toBe(0);

    // The same call from the app's own origin (callAction sends it) invites.
    const email = `same-origin-${workspace.slug}@example.test`;
    const invited = await callAction<{ ok: boolean }>(env.app.url, { page: members, ...INVITE, cookie }, [
      workspace.slug,
      { email, role: "member" },
    ]);
    expect(invited.ok, JSON.stringify(invited)).toBe(true);
    expect((await db().invitation.findMany({ where: { workspaceId: workspace.id } })).map((r) => r.email)).toEqual([email]);

    // The app logs in order: once the invitation mail is in the log, the refused calls' lines are too.
    await expect.poll(() => env.app.logs().includes(`to ${email}:`), { timeout: 15_000 }).toBe(true);
    const lines = env.app.records().slice(records);
    expect(lines.filter((r) => r.level === "error" || r.level === "fatal")).toEqual([]);
    expect(lines.filter((r) => r.level === "warn").length).toBeLessThanOrEqual(forged.length);
    expect(env.app.logs().slice(logs)).not.toMatch(/\n\s+at |Invalid Server Actions request/);
  });
});
