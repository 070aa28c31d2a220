import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { ServiceError } from "../../lib/errors.ts";

// Managing members (lib/members): roles, removal, ownership transfer, adding existing accounts,
// against a real PostgreSQL. The rules: owners and admins manage; only owners touch owners; a
// workspace always keeps an owner; member.joined { via: "added" } is recorded with the change.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let m: typeof import("../../lib/members/index.ts");
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let dbc: typeof import("../../lib/db/client.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  m = await import("../../lib/members/index.ts");
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  dbc = await import("../../lib/db/client.ts");
});
afterAll(async () => {
  await dbc?.disconnectDb();
  await database?.drop();
});

let n = 0;
async function user(label: string) {
  return users.createUser({ email: `${label}-${++n}@example.test`, password: "password1" });
}

/** A workspace owned by a fresh user, on the team plan with one endpoint so events are recorded. */
async function workspace() {
  const owner = await user("owner");
  const slug = `m-${++n}`;
  const w = await ws.createWorkspace({ slug, name: `Team ${n}`, owner: owner.email, plan: "team" });
  await dbc.db().webhookEndpoint.create({ data: { workspaceId: w.id, url: "https://hooks.example.test/x", secret: "whsec_test" } });
  return { slug, id: w.id, owner };
}

async function membership(workspaceId: number, userId: number) {
  return dbc.db().membership.findFirstOrThrow({ where: { workspaceId, userId } });
}

describe("members", () => {
  test("an admin adds an existing account; member.joined via added is recorded in the same transaction", async () => {
    const w = await workspace();
    const admin = await user("admin");
    await m.addMember({ slug: w.slug, email: admin.email, role: "admin" });
    const newcomer = await user("new");
    const joined = await m.addMemberAs(admin.id, w.slug, { email: newcomer.email.toUpperCase(), role: "member" });
    expect(joined).toMatchObject({ email: newcomer.email, role: "member", via: "added" });

    const events = await dbc
      .db()
      .webhookEvent.findMany({ where: { workspaceId: w.id, type: "member.joined" }, orderBy: { createdAt: "asc" } });
    expect(events).toHaveLength(2);
    expect(JSON.parse(events[1].body).data).toEqual({ member: { id: joined.id, email: newcomer.email, role: "member", via: "added" } });

    await expect(m.addMemberAs(admin.id, w.slug, { email: newcomer.email, role: "member" })).rejects.toMatchObject({ code: "conflict" });
    await expect(m.addMemberAs(admin.id, w.slug, { email: "nobody@example.test", role: "member" })).rejects.toMatchObject({
      code: "not_found",
    });
    const other = await user("other");
    await expect(m.addMemberAs(admin.id, w.slug, { email: other.email, role: "owner" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.addMemberAs(newcomer.id, w.slug, { email: other.email, role: "member" })).rejects.toMatchObject({ code: "forbidden" });
  });

  test("roles: admins manage members and admins, only owners touch owners, the last owner stays", async () => {
    const w = await workspace();
    const [admin, member] = [await user("a"), await user("b")];
    await m.addMember({ slug: w.slug, email: admin.email, role: "admin" });
    await m.addMember({ slug: w.slug, email: member.email, role: "member" });
    const owner = await membership(w.id, w.owner.id);
    const mm = await membership(w.id, member.id);

    expect(await m.changeRole(admin.id, w.slug, { membershipId: mm.id, role: "admin" })).toMatchObject({ role: "admin" });
    await expect(m.changeRole(admin.id, w.slug, { membershipId: mm.id, role: "owner" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.changeRole(admin.id, w.slug, { membershipId: owner.id, role: "member" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.changeRole(member.id, w.slug, { membershipId: owner.id, role: "member" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.changeRole(w.owner.id, w.slug, { membershipId: owner.id, role: "admin" })).rejects.toMatchObject({ code: "conflict" });
    await expect(m.changeRole(w.owner.id, w.slug, { membershipId: mm.id, role: "boss" })).rejects.toMatchObject({ code: "validation" });

    // Two owners: one may step down.
    await m.changeRole(w.owner.id, w.slug, { membershipId: mm.id, role: "owner" });
    await m.changeRole(w.owner.id, w.slug, { membershipId: owner.id, role: "member" });
    expect((await membership(w.id, w.owner.id)).role).toBe("member");
    expect(await dbc.db().membership.count({ where: { workspaceId: w.id, role: "owner" } })).toBe(1);
  });

  test("removing: admins remove members, not owners; anyone may leave except the last owner; strangers see not_found", async () => {
    const w = await workspace();
    const [admin, member, stranger] = [await user("a"), await user("b"), await user("s")];
    await m.addMember({ slug: w.slug, email: admin.email, role: "admin" });
    await m.addMember({ slug: w.slug, email: member.email, role: "member" });
    const owner = await membership(w.id, w.owner.id);
    const am = await membership(w.id, admin.id);
    const mm = await membership(w.id, member.id);

    await expect(m.removeMember(member.id, w.slug, am.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.removeMember(admin.id, w.slug, owner.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.removeMember(stranger.id, w.slug, mm.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(m.removeMember(w.owner.id, w.slug, owner.id)).rejects.toMatchObject({ code: "conflict" });
    expect(await m.removeMember(admin.id, w.slug, mm.id)).toMatchObject({ email: member.email, self: false });
    expect(await m.removeMember(admin.id, w.slug, am.id)).toMatchObject({ self: true });
    expect(await dbc.db().membership.count({ where: { workspaceId: w.id } })).toBe(1);

    // A membership of another workspace cannot be reached through this one.
    const other = await workspace();
    const otherOwner = await membership(other.id, other.owner.id);
    await expect(m.removeMember(w.owner.id, w.slug, otherOwner.id)).rejects.toMatchObject({ code: "not_found" });
  });

  test("transfer ownership: only an owner, to another member; the old owner becomes admin", async () => {
    const w = await workspace();
    const [admin, member] = [await user("a"), await user("b")];
    await m.addMember({ slug: w.slug, email: admin.email, role: "admin" });
    await m.addMember({ slug: w.slug, email: member.email, role: "member" });
    const owner = await membership(w.id, w.owner.id);
    const mm = await membership(w.id, member.id);

    await expect(m.transferOwnership(admin.id, w.slug, mm.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(m.transferOwnership(w.owner.id, w.slug, owner.id)).rejects.toMatchObject({ code: "validation" });
    expect(await m.transferOwnership(w.owner.id, w.slug, mm.id)).toMatchObject({ email: member.email, role: "owner" });
    expect((await membership(w.id, member.id)).role).toBe("owner");
    expect((await membership(w.id, w.owner.id)).role).toBe("admin");
    // The new sole owner cannot leave; the listing puts owners first.
    await expect(m.removeMember(member.id, w.slug, mm.id)).rejects.toMatchObject({ code: "conflict" });
    const list = await m.listMembers(w.id);
    expect(list.map((r) => r.role)).toEqual(["owner", "admin", "admin"]);
  });

  test("two owners demoting each other at the same time never leave the workspace without an owner", async () => {
    const w = await workspace();
    const second = await user("second");
    await m.addMember({ slug: w.slug, email: second.email, role: "owner" });
    const a = await membership(w.id, w.owner.id);
    const b = await membership(w.id, second.id);
    const results = await Promise.allSettled([
      m.changeRole(w.owner.id, w.slug, { membershipId: b.id, role: "member" }),
      m.changeRole(second.id, w.slug, { membershipId: a.id, role: "member" }),
    ]);
    // One demotion goes through; the other is refused by a rule, not by a crash or a deadlock: the
    // last owner cannot go (conflict), or its author is no longer an owner (forbidden).
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ServiceError);
    expect(["conflict", "forbidden"]).toContain(refused.reason.code);
    expect(await dbc.db().membership.count({ where: { workspaceId: w.id, role: "owner" } })).toBe(1);
  });
});
