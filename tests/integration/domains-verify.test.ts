import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { adminCli, nodeFlags } from "../support/compiled.ts";
import { startDnsServer, type DnsServer } from "../support/dns-server.ts";

// Custom domains (lib/domains) against a real PostgreSQL and a real DNS server on loopback
// (DNS_SERVERS): host rules, the TXT check, domain.verified in the same transaction, one host
// pending in several workspaces (the TXT record decides; no workspace touches another's row), removal,
// the CustomDomains gate, and the admin CLI's domain:add / domain:verify.

const root = path.resolve(import.meta.dirname, "../..");
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dns: DnsServer;
let domains: typeof import("../../lib/domains/index.ts");
let ws: typeof import("../../lib/workspaces/index.ts");
let users: typeof import("../../lib/auth/users.ts");
let dbc: typeof import("../../lib/db/client.ts");
let links: typeof import("../../lib/links/index.ts");
let linkDomains: typeof import("../../lib/links/link-domain.ts");

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  dns = await startDnsServer();
  process.env.DNS_SERVERS = dns.address;
  process.env.APP_URL = "http://linkhop.test:3000";
  (await import("../../lib/config/index.ts")).resetConfig();
  domains = await import("../../lib/domains/index.ts");
  ws = await import("../../lib/workspaces/index.ts");
  users = await import("../../lib/auth/users.ts");
  dbc = await import("../../lib/db/client.ts");
  links = await import("../../lib/links/index.ts");
  linkDomains = await import("../../lib/links/link-domain.ts");
});
afterAll(async () => {
  await dns?.stop();
  await dbc?.disconnectDb();
  await database?.drop();
});

let n = 0;
async function workspace(plan = "team") {
  const owner = await users.createUser({ email: `d${++n}@example.test`, password: "password1" });
  const w = await ws.createWorkspace({ slug: `dom-${n}`, name: `Domains ${n}`, owner: owner.email, plan });
  // An endpoint that takes every event, so events are recorded (webhooks are in the team plan).
  await dbc.db().webhookEndpoint.create({ data: { workspaceId: w.id, url: "https://hooks.example.test/x", secret: "whsec_test" } });
  return dbc.db().workspace.findUniqueOrThrow({ where: { id: w.id } });
}
const events = (workspaceId: number) => dbc.db().webhookEvent.findMany({ where: { workspaceId, type: "domain.verified" } });

describe("custom domains", () => {
  test("host rules", () => {
    expect(domains.hostProblem("links.example.com")).toBeNull();
    expect(domains.hostProblem("a.b.c.example.co.uk")).toBeNull();
    expect(domains.hostProblem("https://links.example.com")).toMatch(/without https/);
    expect(domains.hostProblem("links.example.com/x")).toMatch(/without https/);
    expect(domains.hostProblem("links.example.com:8080")).toMatch(/port/);
    expect(domains.hostProblem("localhost")).toMatch(/dot/);
    expect(domains.hostProblem("192.168.1.20")).toMatch(/IP address/);
    expect(domains.hostProblem("-bad.example.com")).toMatch(/labels/);
    expect(domains.hostProblem("under_score.example.com")).toMatch(/labels/);
    expect(domains.hostProblem(`${"a".repeat(64)}.example.com`)).toMatch(/labels/);
    expect(domains.hostProblem("linkhop.test")).toMatch(/own domain/);
  });

  test("the plan gates custom domains", async () => {
    const w = await workspace("free");
    await expect(domains.addDomain(w, "x.example.test")).rejects.toMatchObject({ code: "feature" });
  });

  test("add, verify over DNS (domain.verified once, in the same transaction), and the TXT record shown", async () => {
    const w = await workspace();
    const d = await domains.addDomain(w, "  Links.Example.TEST. ");
    expect(d).toMatchObject({ host: "links.example.test", verified: false, txtName: "_linkhop.links.example.test" });
    expect(d.txtValue).toMatch(/^linkhop-verify=[0-9a-f]{32}$/);
    expect(d.target).toEqual({ type: "CNAME", name: "links.example.test", value: "linkhop.test" });
    await expect(domains.addDomain(w, "links.example.test")).rejects.toMatchObject({ code: "validation" });
    await expect(domains.addDomain(w, "not a host")).rejects.toMatchObject({ code: "validation" });

    // No record yet (NXDOMAIN), then a record without the token.
    let r = await domains.verifyDomain(w, d.id);
    expect(r).toMatchObject({ verified: false });
    expect(r.message).toMatch(/No TXT record found at _linkhop.links.example.test/);
    dns.set(d.txtName, "TXT", ["google-site-verification=abc"]);
    r = await domains.verifyDomain(w, d.id);
    expect(r.verified).toBe(false);
    expect(r.message).toMatch(/does not contain linkhop-verify=/);
    expect(await events(w.id)).toHaveLength(0);

    dns.set(d.txtName, "TXT", ["google-site-verification=abc", d.txtValue]);
    r = await domains.verifyDomain(w, d.id);
    expect(r).toMatchObject({ verified: true, alreadyVerified: false, domain: { verified: true } });
    const [event] = await events(w.id);
    expect(JSON.parse(event.body)).toMatchObject({
      type: "domain.verified",
      workspace: { id: w.slug, name: w.name },
      data: { domain: { id: d.id, host: "links.example.test" } },
    });
    expect(JSON.parse(event.body).data).toEqual({ domain: { id: d.id, host: "links.example.test" } });

    // Again: nothing new, no second event, even when the record has gone.
    dns.set(d.txtName, "TXT", []);
    expect(await domains.verifyDomain(w, d.id)).toMatchObject({ verified: true, alreadyVerified: true });
    expect(await events(w.id)).toHaveLength(1);
    expect(await linkDomains.usableDomains(w.id)).toEqual([{ id: d.id, host: "links.example.test" }]);
  });

  test("concurrent checks of one domain send one event", async () => {
    const w = await workspace();
    const d = await domains.addDomain(w, "race.example.test");
    dns.set(d.txtName, "TXT", [d.txtValue]);
    const results = await Promise.all([1, 2, 3, 4].map(() => domains.verifyDomain(w, d.id)));
    expect(results.every((r) => r.verified)).toBe(true);
    expect(await events(w.id)).toHaveLength(1);
  });

  test("another workspace: each may have a host pending with its own token, nobody's row is touched, the TXT record decides", async () => {
    const a = await workspace();
    const b = await workspace();
    const c = await workspace();
    const claimed = await domains.addDomain(a, "shared.example.test");
    // b adds the same host: its own pending row and token; a's row and token stay as they were.
    const mine = await domains.addDomain(b, "shared.example.test");
    const third = await domains.addDomain(c, "shared.example.test");
    expect(new Set([claimed.txtValue, mine.txtValue, third.txtValue]).size).toBe(3);
    expect(await domains.listDomains(a.id)).toMatchObject([
      { id: claimed.id, host: "shared.example.test", verified: false, txtValue: claimed.txtValue },
    ]);
    expect(await domains.listDomains(b.id)).toMatchObject([{ id: mine.id, verified: false, txtValue: mine.txtValue }]);
    // b cannot verify, remove or see a's pending row by id.
    await expect(domains.verifyDomain(b, claimed.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(domains.removeDomain(b, claimed.id)).rejects.toMatchObject({ code: "not_found" });

    // The record holds b's token: a's check fails (its own token is not there), b's succeeds.
    dns.set(mine.txtName, "TXT", [mine.txtValue]);
    expect((await domains.verifyDomain(a, claimed.id)).verified).toBe(false);
    expect((await domains.verifyDomain(b, mine.id)).verified).toBe(true);
    // Now the host is b's: the other pending claims are gone, and adding it again is refused (validation) without naming anyone.
    expect(await domains.listDomains(a.id)).toEqual([]);
    expect(await domains.listDomains(c.id)).toEqual([]);
    await expect(domains.verifyDomain(a, claimed.id)).rejects.toMatchObject({ code: "not_found" });
    const refused = await domains.addDomain(a, "shared.example.test").catch((e: Error) => e);
    expect(refused).toMatchObject({ code: "validation", message: "shared.example.test is already in use by another workspace." });
    // a cannot verify or remove b's domain by id.
    await expect(domains.verifyDomain(a, mine.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(domains.removeDomain(a, mine.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await linkDomains.usableDomains(b.id)).toEqual([{ id: mine.id, host: "shared.example.test" }]);
    expect(await events(a.id)).toHaveLength(0);
    expect(await events(b.id)).toHaveLength(1);
  });

  test("two workspaces verifying one host at the same time: exactly one gets it", async () => {
    const a = await workspace();
    const b = await workspace();
    const da = await domains.addDomain(a, "both.example.test");
    const dbb = await domains.addDomain(b, "both.example.test");
    // Both tokens published (the zone changed hands): both checks pass DNS, the database lets one through.
    dns.set(da.txtName, "TXT", [da.txtValue, dbb.txtValue]);
    const results = await Promise.allSettled([domains.verifyDomain(a, da.id), domains.verifyDomain(b, dbb.id)]);
    const won = results.filter((r) => r.status === "fulfilled" && r.value.verified);
    expect(won, JSON.stringify(results)).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect(["validation", "not_found"]).toContain((r.reason as { code?: string }).code);
    }
    const rows = await dbc.db().domain.findMany({ where: { host: "both.example.test" } });
    expect(rows).toHaveLength(1);
    expect(rows[0].verifiedAt).not.toBeNull();
    expect((await events(a.id)).length + (await events(b.id)).length).toBe(1);
  });

  test("remove: refused while links live on the domain, allowed after", async () => {
    const w = await workspace();
    const d = await domains.addDomain(w, "rm.example.test");
    dns.set(d.txtName, "TXT", [d.txtValue]);
    await domains.verifyDomain(w, d.id);
    const link = await links.createLink(w, { url: "https://example.com/x", domain: "rm.example.test", alias: "rm" });
    await expect(domains.removeDomain(w, d.id)).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringMatching(/1 link still uses rm.example.test/),
    });
    await links.deleteLink(w, { code: link.code, domain: "rm.example.test" });
    expect(await domains.removeDomain(w, d.id)).toEqual({ id: d.id, host: "rm.example.test" });
    expect(await domains.listDomains(w.id)).toEqual([]);
  });

  test("admin CLI: domain:add and domain:verify", async () => {
    const w = await workspace();
    const run = (...args: string[]) =>
      new Promise<{ code: number | null; json: Record<string, unknown> }>((resolve) => {
        const child = spawn(process.execPath, [...nodeFlags, adminCli, ...args], {
          cwd: root,
          env: { ...process.env, DATABASE_URL: database.url, DNS_SERVERS: dns.address },
        });
        let out = "";
        child.stdout.on("data", (c) => (out += c));
        // "close", not "exit": stdout may still hold data when the process has exited.
        child.on("close", (code) => {
          const last = out.trim().split("\n").pop();
          if (!last) throw new Error(`admin ${args[0]} printed nothing (exit ${code})`);
          resolve({ code, json: JSON.parse(last) });
        });
      });
    const other = await workspace();
    const pending = await domains.addDomain(other, "cli.example.test");
    const added = await run("domain:add", "--slug", w.slug, "--host", "cli.example.test");
    expect(added.code).toBe(0);
    expect(Object.keys(added.json).sort()).toEqual(["host", "id", "txtName", "txtValue"]);
    expect(added.json).toMatchObject({ host: "cli.example.test", txtName: "_linkhop.cli.example.test" });
    // The other workspace's pending claim is untouched by the add.
    expect(await domains.listDomains(other.id)).toMatchObject([{ id: pending.id, txtValue: pending.txtValue }]);

    const failed = await run("domain:verify", "--slug", w.slug, "--host", "cli.example.test");
    expect(failed).toMatchObject({ code: 1, json: { error: "validation", message: expect.stringMatching(/No TXT record/) } });

    dns.set("_linkhop.cli.example.test", "TXT", [String(added.json.txtValue)]);
    const verified = await run("domain:verify", "--slug", w.slug, "--host", "cli.example.test");
    expect(verified).toEqual({ code: 0, json: { id: added.json.id, host: "cli.example.test", verified: true } });
    expect(await events(w.id)).toHaveLength(1);
    // Verified here: the other workspace's pending claim is gone, and the CLI cannot add it there.
    expect(await domains.listDomains(other.id)).toEqual([]);
    const again = await run("domain:add", "--slug", other.slug, "--host", "cli.example.test");
    expect(again).toMatchObject({
      code: 1,
      json: { error: "validation", message: "cli.example.test is already in use by another workspace." },
    });
  });
});
