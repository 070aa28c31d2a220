import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAction } from "../support/actions.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { signInCookie } from "../support/session.ts";
import { emitEvent, useEnv } from "./webhooks-helpers.ts";

// Only owners and admins manage webhook endpoints: the Developers page's server actions, called
// over HTTP in the running app as a signed-in member (refused, nothing changes) and as an admin
// (each one works).

const FILE = "app/w/[slug]/developers/actions.ts";
type Result<T = unknown> = { ok: true; data: T } | { ok: false; code?: string; error: string };

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let db: typeof import("../../lib/db/client.ts").db;
let webhooks: typeof import("../../lib/webhooks/index.ts");
let ws: { id: number; slug: string; name: string; plan: string };
const cookies: Record<"member" | "admin" | "owner", string> = { member: "", admin: "", owner: "" };

/**
 * Calls the action as its page does, (slug, input): from the endpoint's page when the input names
 * one ({ id }), else from the list.
 */
const act = <T>(as: keyof typeof cookies, name: string, slug: string, input: unknown) => {
  const id = (input as { id?: unknown })?.id;
  const page = typeof id === "number" ? `/w/${ws.slug}/developers/${id}` : `/w/${ws.slug}/developers`;
  return callAction<Result<T>>(app.url, { page, file: FILE, name, cookie: cookies[as] }, [slug, input]);
};

beforeAll(async () => {
  database = await createTestDatabase();
  useEnv({ WEBHOOK_ALLOW_PRIVATE: "1", DNS_SERVERS: undefined });
  await useDatabaseInProcess(database.url);
  db = (await import("../../lib/db/client.ts")).db;
  webhooks = await import("../../lib/webhooks/index.ts");
  const svc = await import("../../lib/workspaces/index.ts");
  const users = await import("../../lib/auth/users.ts");
  const members = await import("../../lib/members/index.ts");
  const owner = await users.signUp({ email: "hooks-owner@example.com", password: "password1" });
  await svc.setPlan(owner.workspace.slug, "team");
  for (const role of ["member", "admin"] as const) {
    await users.createUser({ email: `hooks-${role}@example.com`, password: "password1" });
    await members.addMember({ slug: owner.workspace.slug, email: `hooks-${role}@example.com`, role });
  }
  ws = await db().workspace.findUniqueOrThrow({ where: { id: owner.workspace.id } });
  // WEBHOOK_ALLOW_PRIVATE: endpoints on loopback (nothing listens on port 9: attempts fail fast)
  app = await startApp(database.url, { WEBHOOK_ALLOW_PRIVATE: "1" });
  for (const as of ["member", "admin", "owner"] as const) cookies[as] = await signInCookie(app.url, `hooks-${as}@example.com`, "password1");
});
afterAll(async () => {
  await app?.stop();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

const input = (path: string) => ({ url: `https://127.0.0.1:9/${path}`, description: "", events: "all" as const });

describe("webhook endpoint actions", () => {
  it("a member is refused every one of them, and nothing changes", async () => {
    const ep = await webhooks.createEndpoint(ws.id, { url: "https://127.0.0.1:9/members-cannot" });
    const { deliveryIds } = await emitEvent(ws);
    const snapshot = async () => ({
      // what the actions change (the app's scheduler meanwhile attempts the event: failure counts may move)
      endpoints: await db().webhookEndpoint.findMany({
        where: { workspaceId: ws.id },
        orderBy: { id: "asc" },
        select: { id: true, url: true, description: true, allEvents: true, events: true, enabled: true, secret: true, disabledAt: true },
      }),
      attempts: await db().deliveryAttempt.count({ where: { delivery: { endpointId: ep.id }, manual: true } }),
      tests: await db().delivery.count({ where: { endpointId: ep.id, isTest: true } }),
    });
    const before = await snapshot();

    const calls: [string, unknown][] = [
      ["createEndpointAction", input("by-member")],
      ["updateEndpointAction", { id: ep.id, input: input("changed-by-member") }],
      ["setEnabledAction", { id: ep.id, enabled: false }],
      ["revealSecretAction", { id: ep.id }],
      ["replaceSecretAction", { id: ep.id }],
      ["sendTestAction", { id: ep.id }],
      ["resendAction", { id: ep.id, deliveryId: deliveryIds[0] }],
      ["deleteEndpointAction", { id: ep.id }],
    ];
    for (const [name, args] of calls) {
      const r = await act("member", name, ws.slug, args);
      expect(r, name).toMatchObject({ ok: false, code: "forbidden" });
      expect(JSON.stringify(r), name).not.toContain(await webhooks.revealSecret(ws.id, ep.id));
    }
    expect(await snapshot()).toEqual(before);
  });

  it("an admin can do each of them", async () => {
    const created = await act<{ id: number; url: string }>("admin", "createEndpointAction", ws.slug, input("by-admin"));
    expect(created).toMatchObject({ ok: true, data: { url: "https://127.0.0.1:9/by-admin" } });
    const id = (created as { data: { id: number } }).data.id;
    expect(await db().webhookEndpoint.count({ where: { id, workspaceId: ws.id } })).toBe(1);

    expect(await act("admin", "updateEndpointAction", ws.slug, { id, input: input("changed-by-admin") })).toMatchObject({ ok: true });
    expect((await db().webhookEndpoint.findUniqueOrThrow({ where: { id } })).url).toBe("https://127.0.0.1:9/changed-by-admin");

    expect(await act("admin", "setEnabledAction", ws.slug, { id, enabled: false })).toMatchObject({ ok: true });
    expect((await db().webhookEndpoint.findUniqueOrThrow({ where: { id } })).enabled).toBe(false);
    expect(await act("admin", "setEnabledAction", ws.slug, { id, enabled: true })).toMatchObject({ ok: true });

    const revealed = await act<string>("admin", "revealSecretAction", ws.slug, { id });
    expect(revealed).toEqual({ ok: true, data: await webhooks.revealSecret(ws.id, id) });
    const replaced = await act<string>("admin", "replaceSecretAction", ws.slug, { id });
    expect(replaced.ok).toBe(true);
    const secretNow = await webhooks.revealSecret(ws.id, id);
    expect(replaced).toEqual({ ok: true, data: secretNow });
    expect(secretNow).not.toBe((revealed as { data: string }).data);

    expect(await act("admin", "sendTestAction", ws.slug, { id })).toMatchObject({ ok: true, data: { attempted: true, delivered: false } });
    expect(await db().delivery.count({ where: { endpointId: id, isTest: true } })).toBe(1);

    const { deliveryIds } = await emitEvent(ws);
    const mine = (await db().delivery.findMany({ where: { id: { in: deliveryIds }, endpointId: id } }))[0];
    expect(await act("admin", "resendAction", ws.slug, { id, deliveryId: mine.id })).toMatchObject({ ok: true, data: { attempted: true } });
    expect(await db().deliveryAttempt.count({ where: { deliveryId: mine.id, manual: true } })).toBe(1);

    expect(await act("admin", "deleteEndpointAction", ws.slug, { id })).toEqual({ ok: true, data: { id } });
    expect(await db().webhookEndpoint.count({ where: { id } })).toBe(0);
  });

  it("the owner can too", async () => {
    const created = await act<{ id: number }>("owner", "createEndpointAction", ws.slug, input("by-owner"));
    expect(created).toMatchObject({ ok: true });
    const id = (created as { data: { id: number } }).data.id;
    expect(await act("owner", "deleteEndpointAction", ws.slug, { id })).toEqual({ ok: true, data: { id } });
  });
});
