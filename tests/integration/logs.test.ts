import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createEndpoint } from "../../lib/webhooks/index.ts";
import { createUser } from "../../lib/auth/users.ts";
import { call, client, makeWorkspace, startApiTest, TEST_SHORT_DOMAIN, type ApiTestEnv } from "../support/api.ts";
import { startReceiver, type Receiver } from "../support/https-receiver.ts";
import type { LogRecord } from "../support/logs.ts";
import { signInCookie } from "../support/session.ts";
import { startSmtpServer, type SmtpServer } from "../support/smtp.ts";
import { formsOf, submitForm } from "./security-auth-forms.ts";
import { request } from "./redirects-helpers.ts";

// The server's log (lib/log) as `npm start` writes it: JSON lines, a request id on every request
// but a redirect (kept from the client when it is safe, else made), the same id as a 500's
// reference, one line per API request, and never a password, key, secret, token or visitor address.

let env: ApiTestEnv;
let smtp: SmtpServer;
let receiver: Receiver;
const NEW_ID = /^err_[0-9a-f]{16}$/;

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver();
  env = await startApiTest({ env: { SMTP_URL: smtp.url, TRUST_PROXY: "1", WEBHOOK_ALLOW_PRIVATE: "1" } });
}, 120_000);

afterAll(async () => {
  await env?.stop();
  await receiver?.stop();
  await smtp?.stop();
});

/** The app's records, once one matching `pred` has been written. */
async function recordsOnce(pred: (r: LogRecord) => boolean): Promise<LogRecord[]> {
  await expect.poll(() => env.app.records().some(pred), { timeout: 15_000 }).toBe(true);
  return env.app.records().filter(pred);
}

/** Every link insert whose URL contains /boom-logs fails in the database: the API answers 500. */
async function withFailingInserts<T>(fn: () => Promise<T>): Promise<T> {
  await db().$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION logs_test_boom() RETURNS trigger AS $$
    BEGIN IF NEW.url LIKE '%/boom-logs%' THEN RAISE EXCEPTION 'boom for the logs test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
  await db().$executeRawUnsafe(`CREATE TRIGGER logs_test_boom BEFORE INSERT ON "Link" FOR EACH ROW EXECUTE FUNCTION logs_test_boom()`);
  try {
    return await fn();
  } finally {
    await db().$executeRawUnsafe(`DROP TRIGGER logs_test_boom ON "Link"`);
    await db().$executeRawUnsafe(`DROP FUNCTION logs_test_boom()`);
  }
}

describe("request ids", () => {
  it("a 500's reference is its X-Error-Reference and its X-Request-Id, and the error's log line carries it with the stack", async () => {
    const { key, workspace } = await makeWorkspace("pro");
    const a = await withFailingInserts(() => client(env.app, key).post("/api/v1/links", { url: "https://example.com/boom-logs" }));
    expect(a.status).toBe(500);
    expect(a.body.reference).toMatch(NEW_ID);
    expect(a.headers["x-error-reference"]).toBe(a.body.reference);
    expect(a.headers["x-request-id"]).toBe(a.body.reference);

    const [error] = await recordsOnce((r) => r.requestId === a.body.reference && r.level === "error");
    expect(error).toMatchObject({ area: "api", msg: "server_error POST /api/v1/links" });
    expect(error.err?.stack).toMatch(/boom for the logs test[\s\S]*\n\s+at /);
    // and the request's own line: method, path, status, the workspace; never the key
    const [line] = await recordsOnce((r) => r.requestId === a.body.reference && r.msg === "request");
    expect(line).toMatchObject({
      area: "api",
      level: "info",
      method: "POST",
      path: "/api/v1/links",
      status: 500,
      workspaceId: workspace.id,
    });
    expect(typeof line.durationMs).toBe("number");
    expect(JSON.stringify(line)).not.toContain(key);
  });

  it("a safe X-Request-Id from the client is kept: answered, the 500's reference, and in the log", async () => {
    const { key } = await makeWorkspace("pro");
    const id = `client-${randomBytes(6).toString("hex")}`;
    const a = await withFailingInserts(() =>
      call(env.app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/boom-logs" }, headers: { "x-request-id": id } }),
    );
    expect(a.status).toBe(500);
    expect([a.body.reference, a.headers["x-error-reference"], a.headers["x-request-id"]]).toEqual([id, id, id]);
    // (the error is logged at once, the request's line at the end of its event-loop turn: wait for both)
    await recordsOnce((r) => r.requestId === id && r.msg === "request");
    await recordsOnce((r) => r.requestId === id && r.level === "error");
    expect(
      env.app
        .records()
        .filter((r) => r.requestId === id)
        .map((r) => r.msg)
        .sort(),
    ).toEqual(["request", "server_error POST /api/v1/links"]);

    // A success, and an app page, answer it too.
    const ok = await call(env.app, "GET", "/api/v1/links", { key, headers: { "x-request-id": id } });
    expect([ok.status, ok.headers["x-request-id"]]).toEqual([200, id]);
    const page = await fetch(`${env.app.url}/login`, { headers: { "x-request-id": id } });
    expect([page.status, page.headers.get("x-request-id")]).toEqual([200, id]);
  });

  it("an unsafe or oversized X-Request-Id is replaced by a new id, which is never the client's and is not logged", async () => {
    const { key } = await makeWorkspace("pro");
    const marker = randomBytes(6).toString("hex");
    const unsafe = [`bad id ${marker}`, `${marker}<script>`, `x${marker}`.padEnd(101, "x"), `${marker}\u00e9`];
    const seen = new Set<string>();
    for (const sent of unsafe) {
      const a = await call(env.app, "GET", "/api/v1/links", { key, headers: { "x-request-id": sent } });
      expect(a.status).toBe(200);
      expect(a.headers["x-request-id"], sent).toMatch(NEW_ID);
      seen.add(a.headers["x-request-id"] as string);
      const page = await fetch(`${env.app.url}/login`, { headers: { "x-request-id": sent } }).catch(() => null);
      if (page) expect(page.headers.get("x-request-id"), sent).toMatch(NEW_ID);
    }
    expect(seen.size).toBe(unsafe.length);
    await recordsOnce((r) => r.requestId === [...seen].at(-1));
    expect(env.app.rawLogs()).not.toContain(marker);
  });

  it("without one, every app answer has a new id; a short-link redirect has none", async () => {
    const a = await fetch(`${env.app.url}/login`);
    const b = await fetch(`${env.app.url}/login`);
    expect(a.headers.get("x-request-id")).toMatch(NEW_ID);
    expect(b.headers.get("x-request-id")).toMatch(NEW_ID);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));

    const { key } = await makeWorkspace("pro");
    const alias = `rid-${randomBytes(4).toString("hex")}`;
    expect((await client(env.app, key).post("/api/v1/links", { url: "https://example.com/r", alias })).status).toBe(201);
    const hop = await request(env.app.port, TEST_SHORT_DOMAIN, `/${alias}`, { headers: { "x-request-id": "client-hop-1" } });
    expect(hop.status).toBe(302);
    expect(hop.headers["x-request-id"]).toBeUndefined();
  });

  it("a page whose render fails on the server is logged with the id it answered (instrumentation.ts)", async () => {
    const { workspace } = await makeWorkspace("pro", { keys: 0 });
    const user = await createUser({ email: `page-${workspace.slug}@example.test`, password: "password1" });
    await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "owner" } });
    const cookie = await signInCookie(env.app.url, user.email, "password1");
    // A column the links page reads goes missing for a moment: its render fails in the database.
    await db().$executeRawUnsafe(`ALTER TABLE "Link" RENAME COLUMN "notes" TO "notes_missing_for_logs_test"`);
    let res: Response;
    try {
      res = await fetch(`${env.app.url}/w/${workspace.slug}/links`, { headers: { cookie, "x-request-id": `page-${workspace.slug}` } });
      await res.text();
    } finally {
      await db().$executeRawUnsafe(`ALTER TABLE "Link" RENAME COLUMN "notes_missing_for_logs_test" TO "notes"`);
    }
    // (the page streams: its status was sent before the failing part rendered)
    expect(res.headers.get("x-request-id")).toBe(`page-${workspace.slug}`);
    const [failed] = await recordsOnce((r) => r.requestId === `page-${workspace.slug}` && r.area === "app");
    expect(failed).toMatchObject({ level: "error", msg: "request failed", method: "GET", route: "/w/[slug]/links", routeType: "render" });
    expect(failed.err?.stack).toMatch(/notes[\s\S]*\n\s+at /);
  });
});

describe("no secrets in the log", () => {
  it("passwords, API keys, webhook secrets, link passwords, reset tokens and visitor addresses used in a run appear in no line", async () => {
    const secret = (label: string) => `${label}-${randomBytes(9).toString("base64url")}`;
    const visitor = () => `203.0.113.${10 + Math.floor(Math.random() * 200)}`;
    const used: Record<string, string> = {};
    const from = (label: string) => {
      used[label] = visitor();
      return { "x-forwarded-for": `10.9.8.7, ${used[label]}` };
    };

    // sign-up and sign-in with a password, a wrong password, from visitor addresses
    const email = `secrets-${randomBytes(4).toString("hex")}@example.test`;
    used.password = secret("pw");
    const signedUp = await submitForm(env.app.url, "/signup", { email, password: used.password }, { headers: from("signupAddress") });
    expect(signedUp.status).toBeLessThan(400);
    await signInCookie(env.app.url, email, used.password);
    used.wrongPassword = secret("wrong");
    const csrf = await fetch(`${env.app.url}/api/auth/csrf`, { headers: from("csrfAddress") });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    used.csrfToken = csrfToken;
    const wrong = await fetch(`${env.app.url}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: (csrf.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; "),
        ...from("signinAddress"),
      },
      body: new URLSearchParams({ csrfToken, email, password: used.wrongPassword, callbackUrl: `${env.app.url}/` }),
    });
    expect(wrong.status).toBeLessThan(500);

    // an API key (and one that is not), a link password, a webhook secret
    const { key, workspace } = await makeWorkspace("team");
    used.apiKey = key;
    used.unknownKey = "lh_" + randomBytes(30).toString("base64url").replace(/[-_]/g, "a").slice(0, 40);
    const endpoint = await createEndpoint(workspace.id, { url: receiver.url(), events: ["link.created"] });
    used.webhookSecret = endpoint.secret;
    used.linkPassword = secret("linkpw");
    const alias = `sec-${randomBytes(4).toString("hex")}`;
    const api = await call(env.app, "POST", "/api/v1/links", {
      key,
      json: { url: "https://example.com/secret-target", alias, password: used.linkPassword },
      headers: from("apiAddress"),
    });
    expect(api.status, api.text).toBe(201);
    expect((await call(env.app, "GET", "/api/v1/links", { key: used.unknownKey, headers: from("unknownKeyAddress") })).status).toBe(401);
    await receiver.waitFor(1, 30_000);

    // the link's password form, a wrong and the right password, and a plain visit, from visitors
    const hop = (label: string, form?: Record<string, string>) =>
      request(env.app.port, TEST_SHORT_DOMAIN, `/${alias}`, { headers: from(label), form });
    expect((await hop("formAddress")).status).toBe(200);
    used.wrongLinkPassword = secret("wronglinkpw");
    expect((await hop("wrongLinkPasswordAddress", { password: used.wrongLinkPassword })).status).toBe(401);
    expect((await hop("linkPasswordAddress", { password: used.linkPassword })).status).toBe(302);

    // a password reset: the mailed token, used to set a new password
    expect((await submitForm(env.app.url, "/forgot-password", { email }, { headers: from("forgotAddress") })).status).toBeLessThan(400);
    const mail = await smtp.waitFor((m) => m.to.includes(email) && m.subject === "Reset your Linkhop password");
    const pathname = new URL(/https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(mail.text)![0]).pathname;
    used.resetToken = pathname.split("/").pop()!;
    used.newPassword = secret("newpw");
    const page = await (await fetch(`${env.app.url}${pathname}`, { headers: from("resetPageAddress") })).text();
    const form = formsOf(page).find((f) => f.fields.some(([name]) => name.startsWith("$ACTION")))!;
    const body = new FormData();
    for (const [name, value] of form.fields) body.append(name, value);
    body.append("password", used.newPassword);
    const set = await fetch(`${env.app.url}${pathname}`, { method: "POST", body, headers: from("resetAddress"), redirect: "manual" });
    expect(set.status).toBeLessThan(400);
    await signInCookie(env.app.url, email, used.newPassword);

    // The run was logged (so the search below looks at something): the API requests, by workspace.
    const lines = await recordsOnce((r) => r.msg === "request" && r.workspaceId === workspace.id && r.status === 201);
    expect(lines).toHaveLength(1);
    expect(env.app.records().some((r) => r.msg === "request" && r.status === 401)).toBe(true);
    const output = env.app.rawLogs();
    for (const [what, value] of Object.entries(used)) expect(output, `${what} (${value}) is in the log`).not.toContain(value);
  });
});
