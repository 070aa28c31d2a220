import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";

// The first operator (lib/instance/setup-link.ts) against real PostgreSQL: the link works once,
// for an hour on the app's clock, for an existing (signed-in) account, never while an instance
// administrator exists, and of two accounts opening it at the same time exactly one becomes it.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let setup: typeof import("../../lib/instance/setup-link.ts");
let users: typeof import("../../lib/auth/users.ts");
let inst: typeof import("../../lib/instance/index.ts");
let dbc: typeof import("../../lib/db/client.ts");
let clock: typeof import("../../lib/clock.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  setup = await import("../../lib/instance/setup-link.ts");
  users = await import("../../lib/auth/users.ts");
  inst = await import("../../lib/instance/index.ts");
  dbc = await import("../../lib/db/client.ts");
  clock = await import("../../lib/clock.ts");
});
afterAll(async () => {
  clock?.setClock(null);
  await dbc?.disconnectDb();
  await database?.drop();
});
// each test starts from an instance without administrators
beforeEach(async () => {
  clock.setClock(null);
  await dbc.db().user.updateMany({ data: { instanceAdmin: false } });
});

let n = 0;
const account = async () => users.createUser({ email: `setup-${++n}-${Date.now()}@example.test`, password: "password1" });
const tokenOf = (url: string) => new URL(url).pathname.slice(setup.SETUP_PATH.length);
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
  );

describe("the setup link", () => {
  test("signing up first makes no one an administrator; the link makes the account that uses it one", async () => {
    const first = await account();
    expect(await inst.isInstanceAdmin(first.id)).toBe(false);
    const link = await setup.createSetupLink();
    expect(link.url).toMatch(/^http:\/\/localhost:3000\/setup\/[A-Za-z0-9_-]{43}$/);
    const second = await account();
    expect(await setup.redeemSetupLink({ userId: second.id, token: tokenOf(link.url) })).toEqual({ email: second.email });
    expect(await inst.isInstanceAdmin(second.id)).toBe(true);
    expect(await inst.isInstanceAdmin(first.id)).toBe(false);
  });

  test("works once: a second use, by anyone, is refused", async () => {
    const [a, b] = [await account(), await account()];
    const token = tokenOf((await setup.createSetupLink()).url);
    await setup.redeemSetupLink({ userId: a.id, token });
    expect(await refusal(setup.redeemSetupLink({ userId: b.id, token }))).toMatchObject({ code: "forbidden" });
    await dbc.db().user.update({ where: { id: a.id }, data: { instanceAdmin: false } });
    // even with no administrator again, a used link stays used
    expect(await refusal(setup.redeemSetupLink({ userId: b.id, token }))).toMatchObject({ code: "forbidden" });
    expect(await inst.isInstanceAdmin(b.id)).toBe(false);
  });

  test("expires after an hour on the app's clock; a new link replaces the last", async () => {
    const a = await account();
    const start = Date.now();
    clock.setClock(() => start);
    const old = tokenOf((await setup.createSetupLink()).url);
    const fresh = tokenOf((await setup.createSetupLink()).url);
    expect(await refusal(setup.redeemSetupLink({ userId: a.id, token: old }))).toMatchObject({ code: "forbidden" });
    clock.setClock(() => start + setup.SETUP_LINK_MINUTES * 60_000 + 1);
    expect(await refusal(setup.redeemSetupLink({ userId: a.id, token: fresh }))).toMatchObject({ code: "forbidden" });
    expect(await inst.isInstanceAdmin(a.id)).toBe(false);
    clock.setClock(() => start + setup.SETUP_LINK_MINUTES * 60_000 - 1_000);
    const inTime = tokenOf((await setup.createSetupLink()).url);
    clock.setClock(() => start + 2 * setup.SETUP_LINK_MINUTES * 60_000 - 2_000);
    await setup.redeemSetupLink({ userId: a.id, token: inTime });
    expect(await inst.isInstanceAdmin(a.id)).toBe(true);
  });

  test("needs an account: no user, or a token that is not one, is refused and changes nothing", async () => {
    const token = tokenOf((await setup.createSetupLink()).url);
    expect(await refusal(setup.redeemSetupLink({ userId: 2_000_000_000, token }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(setup.redeemSetupLink({ token }))).toMatchObject({ code: "validation" });
    const a = await account();
    expect(await refusal(setup.redeemSetupLink({ userId: a.id, token: "x".repeat(43) }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(setup.redeemSetupLink({ userId: a.id, token: "../../etc" }))).toMatchObject({ code: "forbidden" });
    // the refused tries left the link usable
    await setup.redeemSetupLink({ userId: a.id, token });
    expect(await inst.isInstanceAdmin(a.id)).toBe(true);
  });

  test("refused when an administrator exists: no new link, and an open one no longer works", async () => {
    const [a, b] = [await account(), await account()];
    const token = tokenOf((await setup.createSetupLink()).url);
    await inst.setInstanceAdmin({ email: a.email });
    expect(await refusal(setup.redeemSetupLink({ userId: b.id, token }))).toEqual({
      code: "forbidden",
      message: setup.ADMIN_EXISTS_MESSAGE,
    });
    expect(await refusal(setup.createSetupLink())).toMatchObject({ code: "conflict" });
    expect(await setup.setupLinkAtStart()).toBeNull();
    expect(await inst.isInstanceAdmin(b.id)).toBe(false);
  });

  test("two accounts opening the link at the same time: exactly one becomes the administrator", async () => {
    const people = await Promise.all(Array.from({ length: 6 }, () => account()));
    const token = tokenOf((await setup.createSetupLink()).url);
    const results = await Promise.all(people.map((p) => refusal(setup.redeemSetupLink({ userId: p.id, token }))));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(await dbc.db().user.count({ where: { instanceAdmin: true } })).toBe(1);
  });

  test("setupLinkAtStart makes a link while there is no administrator", async () => {
    const link = await setup.setupLinkAtStart();
    expect(link?.url).toContain(setup.SETUP_PATH);
    const a = await account();
    await setup.redeemSetupLink({ userId: a.id, token: tokenOf(link!.url) });
    expect(await setup.setupLinkAtStart()).toBeNull();
  });
});
