import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../lib/db/client.ts";
import { createEndpoint } from "../../lib/webhooks/index.ts";
import { createUser } from "../../lib/auth/users.ts";
import { callAction } from "../support/actions.ts";
import { call, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";

// User input never causes a 500 or shows internal text: out-of-range ids and cursors in page
// URLs, methods and request targets Next does not handle, bad percent-encoding, a client that
// gives up halfway through an upload, and the Inngest endpoint when Inngest is not configured.
// Each attack is sent over real HTTP; the server log must not record a server error for it.

let env: ApiTestEnv;
/** The workspace whose owner invites the log markers (see logsDuring). */
let marker: { slug: string; cookie: string };

beforeAll(async () => {
  // Without SMTP_URL mail goes to the server log, which logsDuring relies on.
  env = await startApiTest({ env: { WEBHOOK_ALLOW_PRIVATE: "1", SMTP_URL: "" } });
  const { workspace, cookie } = await owner();
  marker = { slug: workspace.slug, cookie };
});
afterAll(async () => {
  await env?.stop();
});

let markers = 0;

/**
 * The log lines written while `fn` ran. Then a marker is logged (an invitation to a new address,
 * whose mail goes to the log) and awaited: whatever `fn`'s requests made the server log was
 * written before it (the app writes stdout and stderr synchronously, so an earlier error line on
 * stderr has reached logs() by the time the marker on stdout has).
 */
async function logsDuring(fn: () => Promise<void>): Promise<string> {
  const before = env.app.logs().length;
  await fn();
  const email = `log-marker-${++markers}@example.test`;
  const invited = await callAction<{ ok: boolean }>(
    env.app.url,
    { page: `/w/${marker.slug}/members`, file: "app/w/[slug]/members/actions.ts", name: "inviteAction", cookie: marker.cookie },
    [marker.slug, { email, role: "member" }],
  );
  expect(invited.ok, JSON.stringify(invited)).toBe(true);
  await expect.poll(() => env.app.logs().includes(`to ${email}:`), { timeout: 15_000 }).toBe(true);
  return env.app.logs().slice(before);
}

const SERVER_ERROR = /server_error|Error:|\n\s+at /;

/** One raw request over a socket (exact request line); resolves with the status line and the whole answer. */
function raw(request: string, opts: { abortAfterWrite?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(env.app.port, "127.0.0.1", () => {
      socket.write(request);
      if (opts.abortAfterWrite) setTimeout(() => socket.destroy(), 200);
    });
    let out = "";
    socket.on("data", (d) => (out += d));
    socket.on("close", () => resolve(out));
    socket.on("error", (e) => (opts.abortAfterWrite ? resolve(out) : reject(e)));
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

async function owner() {
  const { workspace, key } = await makeWorkspace("team");
  const user = await createUser({ email: `owner-${workspace.slug}@example.test`, password: "password1" });
  await db().membership.create({ data: { workspaceId: workspace.id, userId: user.id, role: "owner" } });
  const cookie = await signInCookie(env.app.url, user.email, "password1");
  return { workspace, key, cookie };
}

describe("no 500 from user input", () => {
  it("page URLs with out-of-range or malformed ids and cursors answer 404 or the page, never 500", async () => {
    const { workspace, cookie } = await owner();
    const endpoint = await createEndpoint(workspace.id, { url: "http://127.0.0.1:9/hook" });
    const w = `/w/${workspace.slug}`;
    const logs = await logsDuring(async () => {
      for (const path of [
        `${w}/developers/99999999999`,
        `${w}/developers/-1`,
        `${w}/developers/1e3`,
        `${w}/developers/abc`,
        `${w}/links/99999999999`,
        `${w}/links/99999999999/edit`,
        `${w}/links/0x10`,
        "/w/%00/links",
        `/w/${"a".repeat(5000)}/links`,
      ]) {
        const res = await fetch(env.app.url + path, { headers: { cookie }, redirect: "manual" });
        // Pages with a loading state have started streaming (200) before they find out; the text is the same.
        expect([200, 404], path).toContain(res.status);
        expect(await res.text(), path).toContain("Page not found");
      }
      for (const query of ["before=99999999999", "before=-5", "before=abc", "status=bogus", "type=%00"]) {
        const res = await fetch(`${env.app.url}${w}/developers/${endpoint.id}?${query}`, { headers: { cookie }, redirect: "manual" });
        expect(res.status, query).toBeLessThan(500);
        expect(await res.text(), query).not.toMatch(/P20\d\d|prisma|invalid_type|ZodError/i);
      }
      // The legitimate page still opens.
      const ok = await fetch(`${env.app.url}${w}/developers/${endpoint.id}`, { headers: { cookie } });
      expect(ok.status).toBe(200);
    });
    expect(logs).not.toMatch(SERVER_ERROR);
  });

  it("TRACE and other methods, OPTIONS *, bad percent-encoding: clear 4xx answers, no 500", async () => {
    const { key } = await makeWorkspace("team");
    const logs = await logsDuring(async () => {
      for (const method of ["TRACE", "PROPFIND", "CONNECT"]) {
        for (const path of ["/api/v1/links", "/login", "/w/x/links"]) {
          const a =
            method === "CONNECT"
              ? {
                  status: Number(
                    (await raw(`CONNECT ${path} HTTP/1.1\r\nHost: localhost:3000\r\nConnection: close\r\n\r\n`)).split(" ")[1],
                  ),
                }
              : await call(env.app, method, path);
          expect(a.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
          expect(a.status, `${method} ${path}`).toBeLessThan(500);
        }
      }
      const trace = await call(env.app, "TRACE", "/api/v1/links", { key });
      expect(trace.status).toBe(405);
      expect(trace.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");

      const star = await raw("OPTIONS * HTTP/1.1\r\nHost: localhost:3000\r\nConnection: close\r\n\r\n");
      expect(star).toMatch(/^HTTP\/1\.1 204 /);
      expect(star).toMatch(/\r\nallow: /i);
      const absolute = await raw("GET * HTTP/1.1\r\nHost: localhost:3000\r\nConnection: close\r\n\r\n");
      expect(absolute).toMatch(/^HTTP\/1\.1 400 /);

      for (const path of ["/w/%E0%A4%A/links", "/w/%E0%A4%A", "/login/%E0%A4%A", "/%E0%A4%A/x", "/w/%ff/links"]) {
        const a = await call(env.app, "GET", path);
        expect(a.status, path).toBe(400);
        expect(a.text, path).not.toMatch(/URIError|at /);
      }
      // The legitimate paths still work.
      expect((await call(env.app, "GET", "/login")).status).toBe(200);
      expect((await call(env.app, "GET", "/api/v1/links", { key })).status).toBe(200);
    });
    expect(logs).not.toMatch(SERVER_ERROR);
  });

  it("a malformed Host header on an app page or the API: 400, no stack trace in the log", async () => {
    const logs = await logsDuring(async () => {
      for (const host of ["a b", "localhost:99999", "[::1", "x:y:z", "evil.example/path", "user@localhost:3000", ""]) {
        for (const path of ["/login", "/w/x/links", "/api/v1/links"]) {
          const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
          expect(answer, `${JSON.stringify(host)} ${path}`).toMatch(/^HTTP\/1\.1 400 /);
          expect(answer, `${JSON.stringify(host)} ${path}`).not.toMatch(/TypeError|Invalid URL|at /);
        }
      }
      // Two Host headers (Node would keep the first; a proxy in front may have used the other).
      const twice = await raw("GET /login HTTP/1.1\r\nHost: localhost:3000\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
      expect(twice).toMatch(/^HTTP\/1\.1 400 /);
      // Ordinary hosts, with and without a port, still reach the page.
      for (const host of ["localhost:3000", "127.0.0.1", "[::1]:3000", "links.example.com"]) {
        expect(await raw(`GET /login HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`), host).toMatch(/^HTTP\/1\.1 200 /);
      }
    });
    expect(logs).not.toMatch(SERVER_ERROR);
  });

  it("a client that aborts an upload halfway is not logged as a server error; a complete one works", async () => {
    const { key } = await makeWorkspace("team");
    const logs = await logsDuring(async () => {
      const head = `POST /api/v1/links/bulk HTTP/1.1\r\nHost: localhost:3000\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 50000\r\n\r\n`;
      await raw(head + '{"links":[' + '{"url":"https://example.com/a"},'.repeat(200), { abortAfterWrite: true });
      await raw(head, { abortAfterWrite: true });
      // The same on a password-protected short link's form.
      const link = await call(env.app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/pw", password: "open sesame" } });
      expect(link.status, link.text).toBe(201);
      await raw(
        `POST /${link.body.code} HTTP/1.1\r\nHost: localhost:3000\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3000\r\n\r\npassword=open`,
        { abortAfterWrite: true },
      );
    });
    expect(logs).not.toMatch(SERVER_ERROR);
    const ok = await call(env.app, "POST", "/api/v1/links/bulk", { key, json: { links: [{ url: "https://example.com/a" }] } });
    expect(ok.status, ok.text).toBe(200);
  });

  it("unknown /api/auth paths and providers and a sign-out without its CSRF token: a 4xx, no error in the log", async () => {
    const logs = await logsDuring(async () => {
      for (const [method, path] of [
        ["GET", "/api/auth/bogus"],
        ["POST", "/api/auth/bogus"],
        ["GET", "/api/auth/signin/nope"],
        ["POST", "/api/auth/signin/nope"],
        ["POST", "/api/auth/signout"],
      ]) {
        const a = await call(
          env.app,
          method,
          path,
          method === "POST" ? { body: "x=1", contentType: "application/x-www-form-urlencoded" } : {},
        );
        expect(a.status, `${method} ${path}`).toBeGreaterThanOrEqual(300);
        expect(a.status, `${method} ${path}`).toBeLessThan(500);
      }
    });
    expect(logs).not.toMatch(SERVER_ERROR);
  });

  it("/api/inngest answers 404 when Inngest is not configured", async () => {
    const logs = await logsDuring(async () => {
      for (const method of ["GET", "POST", "PUT"]) {
        const a = await call(env.app, method, "/api/inngest", { json: {} });
        expect(a.status, method).toBe(404);
      }
    });
    expect(logs).not.toMatch(SERVER_ERROR);
  });
});
