import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { removeDomain } from "../../lib/domains/index.ts";
import { setActive } from "../../lib/workspaces/index.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { statementRelay, type StatementRelay } from "../support/pg-statements.ts";
import { createDomain, createWorkspace, request } from "./redirects-helpers.ts";

// GET /tls/ask?domain=<host>, the question Caddy's on-demand TLS asks before it obtains a
// certificate (lib/domains/tls-ask.ts, deploy/Caddyfile), against the real server: 200 for the
// short domain's host and verified, active custom domains of active workspaces, 404 for the rest,
// on every host, with the host spelled as a client may (case, trailing dot), in one statement on
// the wire (tests/support/pg-statements.ts). tls-caddy.test.ts puts real Caddy in front.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let relay: StatementRelay;
let app: RunningApp;

beforeAll(async () => {
  database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  relay = await statementRelay(new URL(database.url));
  app = await startApp(relay.url, { SHORT_DOMAIN: "short.example.test:8080", APP_URL: "https://app.example.test" });
});

afterAll(async () => {
  await app?.stop();
  await relay?.close();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

const ask = (domain: string, host = "localhost:3000") => request(app.port, host, `/tls/ask?domain=${encodeURIComponent(domain)}`);
const statusOf = async (domain: string, host?: string) => (await ask(domain, host)).status;

describe("GET /tls/ask", () => {
  test("a verified, active custom domain: 200, on any Host, in any spelling a client sends", async () => {
    const ws = await createWorkspace();
    await createDomain(ws.id, "go.verified.test");
    const answer = await ask("go.verified.test");
    expect(answer).toMatchObject({ status: 200, body: "ok\n" });
    expect(answer.headers["cache-control"]).toBe("no-store");
    for (const host of ["go.verified.test", "unknown.example", "127.0.0.1"]) expect(await statusOf("go.verified.test", host)).toBe(200);
    expect(await statusOf("GO.Verified.TEST")).toBe(200);
    expect(await statusOf("go.verified.test.")).toBe(200);
    expect(await statusOf("Go.Verified.Test.")).toBe(200);
  });

  test("the short domain's host (without its port): 200; the app's own host is not asked about", async () => {
    expect(await statusOf("short.example.test")).toBe(200);
    expect(await statusOf("SHORT.example.test.")).toBe(200);
    // APP_URL's host has a certificate of its own in deploy/Caddyfile: it is never on demand
    expect(await statusOf("app.example.test")).toBe(404);
  });

  test("pending, unknown, inactive, empty and missing hosts: 404", async () => {
    const ws = await createWorkspace();
    await createDomain(ws.id, "wait.pending.test", { verified: false });
    await createDomain(ws.id, "off.inactive.test", { active: false });
    expect(await statusOf("wait.pending.test")).toBe(404);
    expect(await statusOf("nobody.unknown.test")).toBe(404);
    expect(await statusOf("off.inactive.test")).toBe(404);
    expect(await statusOf("")).toBe(404);
    expect(await statusOf("x".repeat(300))).toBe(404);
    expect((await request(app.port, "localhost:3000", "/tls/ask")).status).toBe(404);
  });

  test("a removed domain is refused from the next ask", async () => {
    const ws = await createWorkspace();
    const d = await createDomain(ws.id, "gone.removed.test");
    expect(await statusOf("gone.removed.test")).toBe(200);
    await removeDomain(ws, d.id);
    expect(await statusOf("gone.removed.test")).toBe(404);
  });

  test("a deactivated workspace's domains are refused from the next ask, and allowed again when it is reactivated", async () => {
    const ws = await createWorkspace();
    await createDomain(ws.id, "go.deactivated.test");
    expect(await statusOf("go.deactivated.test")).toBe(200);
    await setActive(ws.slug, false);
    expect(await statusOf("go.deactivated.test")).toBe(404);
    await setActive(ws.slug, true);
    expect(await statusOf("go.deactivated.test")).toBe(200);
  });

  test("only GET and HEAD", async () => {
    const head = await request(app.port, "localhost:3000", "/tls/ask?domain=short.example.test", { method: "HEAD" });
    expect([head.status, head.body]).toEqual([200, ""]);
    const post = await request(app.port, "localhost:3000", "/tls/ask?domain=short.example.test", { method: "POST" });
    expect([post.status, post.headers.allow]).toEqual([405, "GET, HEAD"]);
  });

  test("one database statement per ask, on the domain's unique index; none for the short domain", async () => {
    const ws = await createWorkspace();
    await createDomain(ws.id, "count.statements.test");
    // Background work (the custom-domain mirror reloading after the insert, the scheduler) may run
    // statements during a request too: a window with nothing but the ask's statements is waited for.
    const windowOf = async (domain: string) => {
      const from = relay.statements().length;
      expect(await statusOf(domain)).toBe(domain === "nobody.count.test" ? 404 : 200);
      return relay.statements().slice(from);
    };
    const deadline = Date.now() + 20_000;
    let seen: string[] = [];
    for (;;) {
      seen = await windowOf("count.statements.test");
      if (seen.length === 1 || Date.now() > deadline) break;
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/from "Domain" d join "Workspace" w[^]*where d\."verifiedHost" = \$1/);
    // every window, quiet or not, holds exactly one lookup of the asked host
    for (const domain of ["count.statements.test", "nobody.count.test"]) {
      expect((await windowOf(domain)).filter((s) => s.includes('d."verifiedHost" = $1'))).toHaveLength(1);
    }
    expect((await windowOf("short.example.test")).filter((s) => s.includes('"Domain"'))).toHaveLength(0);
    // An index serves it: verifiedHost's unique one. (On a table this small the planner may rather
    // read the table through, so sequential scans are switched off to ask which index it would use.)
    const { db } = await import("../../lib/db/client.ts");
    const plan = await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe("set local enable_seqscan = off");
      return tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`explain ${seen[0].replace("$1", "'count.statements.test'")}`);
    });
    expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toMatch(/Index (Only )?Scan using "Domain_verifiedHost_key"/);
  });
});
