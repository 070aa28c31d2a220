import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorkspace } from "../support/api.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { createTestDatabase, useDatabaseInProcess } from "../support/db.ts";
import { tcpRelay, type TcpRelay } from "../support/tcp-relay.ts";
import { eventually } from "./webhooks-helpers.ts";

// /healthz and /readyz of the real server: readiness follows PostgreSQL (the app reaches it through
// a TCP relay the test cuts), liveness never touches it, and a graceful shutdown answers 503 on
// /readyz from SIGTERM on while the requests in flight are still answered. The app runs without
// any METRICS_* variable, so /metrics is a reserved path answering 404.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let relay: TcpRelay;
let app: RunningApp;

type Answer = { status: number; body: string; headers: http.IncomingHttpHeaders };

/** One request on a connection of its own. */
function get(port: number, path: string, opts: { method?: string; host?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: opts.method ?? "GET", agent: false, headers: { host: opts.host ?? "localhost:3000" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  relay = await tcpRelay(new URL(database.url));
  app = await startApp(relay.url);
});

afterAll(async () => {
  await app?.stop();
  await relay?.close();
  const { disconnectDb } = await import("../../lib/db/client.ts");
  await disconnectDb();
  await database?.drop();
});

describe("health endpoints", () => {
  it("/healthz and /readyz answer 200 on any host; /metrics is a reserved 404 without METRICS_TOKEN", async () => {
    for (const host of ["localhost:3000", "unknown.example", "go.brand.example"]) {
      expect(await get(app.port, "/healthz", { host })).toMatchObject({ status: 200, body: "ok\n" });
      expect(await get(app.port, "/readyz", { host })).toMatchObject({ status: 200, body: "ready\n" });
      expect((await get(app.port, "/metrics", { host })).status).toBe(404);
    }
    const head = await get(app.port, "/readyz", { method: "HEAD" });
    expect([head.status, head.body]).toEqual([200, ""]);
    const post = await get(app.port, "/healthz", { method: "POST" });
    expect([post.status, post.headers.allow]).toEqual([405, "GET, HEAD"]);
  });

  it("/readyz answers 503 while PostgreSQL is unreachable and 200 once it is back; /healthz stays 200", async () => {
    relay.cut();
    try {
      const down = await eventually(
        async () => {
          const a = await get(app.port, "/readyz");
          return a.status === 503 ? a : null;
        },
        10_000,
        "/readyz 503",
      );
      expect(down.body).toMatch(/^not ready: database: .+\n$/);
      expect(down.body.split("\n")).toHaveLength(2); // one line
      expect(await get(app.port, "/healthz")).toMatchObject({ status: 200, body: "ok\n" });
    } finally {
      relay.restore();
    }
    await eventually(async () => (await get(app.port, "/readyz")).status === 200, 10_000, "/readyz 200 again");
    expect(await get(app.port, "/healthz")).toMatchObject({ status: 200, body: "ok\n" });
  });
});

describe("graceful shutdown", () => {
  it("/readyz answers 503 from SIGTERM on, a request in flight is still answered, and every log line is written", async () => {
    await useDatabaseInProcess(database.url);
    const { workspace, key } = await makeWorkspace("free");
    const stopping = await startApp(database.url, { SHUTDOWN_DRAIN_MS: "3000" });
    const exited = new Promise<number | null>((resolve) => stopping.process.once("exit", (code) => resolve(code)));

    // a link create whose body is still on its way when the shutdown begins
    const body = JSON.stringify({ url: "https://example.com/in-flight", title: "in flight" });
    const inFlight = http.request({
      host: "127.0.0.1",
      port: stopping.port,
      path: "/api/v1/links",
      method: "POST",
      agent: false,
      headers: {
        host: "localhost:3000",
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      },
    });
    const answered = new Promise<Answer>((resolve, reject) => {
      inFlight.on("response", (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: text, headers: res.headers }));
      });
      inFlight.on("error", reject);
    });
    inFlight.write(body.slice(0, 10)); // the headers and the start of the body
    await new Promise((resolve) => inFlight.once("socket", (socket) => socket.once("connect", resolve)));

    stopping.process.kill("SIGTERM");
    const draining = await eventually(
      async () => {
        const a = await get(stopping.port, "/readyz");
        return a.status === 503 ? a : null;
      },
      10_000,
      "/readyz 503 after SIGTERM",
    );
    expect(draining.body).toBe("not ready: shutting down\n");
    expect(draining.headers.connection).toBe("close");
    expect(await get(stopping.port, "/healthz")).toMatchObject({ status: 200, body: "ok\n" });

    // after the drain it accepts no new connection, while the request in flight is still open
    await eventually(
      () =>
        get(stopping.port, "/healthz").then(
          () => false,
          (e: NodeJS.ErrnoException) => e.code === "ECONNREFUSED",
        ),
      10_000,
      "the listener to close",
    );
    inFlight.end(body.slice(10));
    const created = await answered;
    expect(created.status).toBe(201);
    const link = JSON.parse(created.body);
    expect(link.url).toBe("https://example.com/in-flight");
    const { db } = await import("../../lib/db/client.ts");
    expect(await db().link.count({ where: { workspaceId: workspace.id, title: "in flight" } })).toBe(1);
    expect(await exited).toBe(0);
    // lines are gathered per event-loop turn (lib/log/batched.ts): none is lost on the way out,
    // down to the last line written after runtime.close()
    // (the output's pipe may still be delivering after the exit: wait for the last line, with a deadline)
    const records = await eventually(
      async () => {
        const r = stopping.records();
        return r.some((x) => x.area === "linkhop" && x.msg === "stopped") ? r : null;
      },
      10_000,
      "the last log line, stopped",
    );
    expect(records.filter((r) => r.area === "api" && r.msg === "request" && r.status === 201 && r.method === "POST")).toHaveLength(1);
  });
});
