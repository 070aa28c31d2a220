import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { signInCookie } from "../support/session.ts";
import { formsOf, submitForm } from "./security-auth-forms.ts";

// The first operator as a newcomer meets it, against the started app (dist/server.js): the first
// start prints one line with the setup link; opening it signed out only offers to sign in or up
// (nothing granted); signed in, its button makes that account the instance administrator and leads
// to the Instance page, whose workspaces' Overview then says "You run this instance: choose your plan".
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: RunningApp;
let inst: typeof import("../../lib/instance/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let workspaces: typeof import("../../lib/workspaces/index.ts");
let dbc: typeof import("../../lib/db/client.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  inst = await import("../../lib/instance/index.ts");
  users = await import("../../lib/auth/users.ts");
  workspaces = await import("../../lib/workspaces/index.ts");
  dbc = await import("../../lib/db/client.ts");
  app = await startApp(database.url);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await dbc?.disconnectDb();
  await database?.drop();
});

const CHOOSE = "You run this instance: choose your plan";

describe("the setup page", () => {
  test("printed at the first start; signed out it grants nothing; signed in its button makes the operator", async () => {
    // written just before the app says it is ready: its output may arrive a moment later
    const setupLines = () => app.records().filter((r) => r.msg?.includes("/setup/"));
    await vi.waitFor(() => expect(setupLines()).not.toHaveLength(0), { timeout: 10_000 });
    const lines = setupLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "info", area: "linkhop" });
    const printed = /http:\/\/localhost:3000(\/setup\/[A-Za-z0-9_-]{43})/.exec(lines[0].msg!)![1];

    const signedOut = await fetch(`${app.url}${printed}`);
    expect(signedOut.status).toBe(200);
    const html = await signedOut.text();
    expect(html).toContain(`/login?next=${encodeURIComponent(printed)}`);
    expect(html).toContain(`/signup?next=${encodeURIComponent(printed)}`);
    expect(formsOf(html).filter((f) => f.fields.some(([n]) => n.startsWith("$ACTION")))).toHaveLength(0);

    const ada = await users.createUser({ email: "ada@example.test", password: "a long password" });
    await workspaces.createWorkspace({ slug: "ada", name: "Ada", owner: ada.email });
    const cookie = await signInCookie(app.url, ada.email, "a long password");
    expect(await (await fetch(`${app.url}/w/ada`, { headers: { cookie } })).text()).not.toContain(CHOOSE);

    const answer = await submitForm(app.url, printed, {}, { headers: { cookie }, containing: "Become the instance administrator" });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe("/instance");
    expect(await inst.isInstanceAdmin(ada.id)).toBe(true);
    expect(await (await fetch(`${app.url}/w/ada`, { headers: { cookie } })).text()).toContain(CHOOSE);
    expect((await fetch(`${app.url}/instance`, { headers: { cookie } })).status).toBe(200);

    // used: a second account's press is refused on the page, and grants nothing
    const bob = await users.createUser({ email: "bob@example.test", password: "a long password" });
    const bobCookie = await signInCookie(app.url, bob.email, "a long password");
    const again = await submitForm(
      app.url,
      printed,
      {},
      { headers: { cookie: bobCookie }, containing: "Become the instance administrator" },
    );
    expect(again.status).toBe(200);
    expect(again.html).toContain("This setup link is not valid");
    expect(await inst.isInstanceAdmin(bob.id)).toBe(false);
  }, 120_000);
});
