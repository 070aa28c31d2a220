import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createUser } from "../../lib/auth/users.ts";
import { actionId, callAction } from "../support/actions.ts";
import { makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";
import { freePort } from "../support/ports.ts";

// A JSON server action posted to a page that does not use it: Next forwards it (x-action-forwarded)
// to a page that does, sending the body server.ts already read and handed over
// (lib/http/action-guard.ts). The forwarded request must carry those exact bytes: an anonymous
// call is refused by the action, not logged as a SyntaxError, and a signed-in call does its work.

let env: ApiTestEnv;

beforeAll(async () => {
  // Next forwards to its own configured port (http://0.0.0.0:<PORT>): the app must listen on the port it was given.
  env = await startApiTest({ env: { PORT: String(await freePort()), SMTP_URL: "" } });
});
afterAll(async () => {
  await env?.stop();
});

const INVITE = { file: "app/w/[slug]/members/actions.ts", name: "inviteAction" };

describe("a JSON server action Next forwards to another page", () => {
  it("keeps its body: anonymous calls log no SyntaxError, a signed-in call invites", async () => {
    const { workspace } = await makeWorkspace("team");
    const user = await createUser({ email: `owner-${workspace.slug}@example.test`, password: "password1" });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "owner" } });
    const cookie = await signInCookie(env.app.url, user.email, "password1");

    // Anonymous, posted to /login (which does not use the action): Next forwards it to the members page.
    const before = env.app.logs().length;
    const anonymous = await fetch(`${env.app.url}/login`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "next-action": actionId(INVITE.file, INVITE.name),
        "content-type": "text/plain;charset=UTF-8",
        accept: "text/x-component",
      },
      body: JSON.stringify([workspace.slug, { email: "anonymous@example.test", role: "member" }]),
    });
    await anonymous.text();
    expect(anonymous.status).toBeLessThan(500);

    // Signed in, posted to the links page: the forwarded action invites (it read the real arguments).
    const email = `forwarded-${workspace.slug}@example.test`;
    const invited = await callAction<{ ok: boolean }>(env.app.url, { page: `/w/${workspace.slug}/links`, ...INVITE, cookie }, [
      workspace.slug,
      { email, role: "member" },
    ]);
    expect(invited.ok, JSON.stringify(invited)).toBe(true);
    const rows = await db().invitation.findMany({ where: { workspaceId: workspace.id }, select: { email: true } });
    expect(rows.map((r) => r.email)).toEqual([email]);
    // The invitation mail goes to the log (no SMTP_URL): once it is there, the anonymous call's log lines are too.
    await expect.poll(() => env.app.logs().includes(`to ${email}:`), { timeout: 15_000 }).toBe(true);
    const logs = env.app.logs().slice(before);
    expect(logs).not.toMatch(/SyntaxError|failed to forward|\n\s+at /);
  });
});
