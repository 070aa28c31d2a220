import http from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { closePooledConnections, postPinned } from "../../lib/net/index.ts";
import { eventually } from "../support/eventually.ts";

// The pinned dialer's connection pool, against a real HTTP server on loopback.
let server: http.Server;
let port: number;
const sockets = new Set<Socket>();
let resetSecondRequestOnce = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const socket = req.socket as Socket & { requests?: number };
    socket.requests = (socket.requests ?? 0) + 1;
    if (resetSecondRequestOnce && socket.requests === 2) {
      resetSecondRequestOnce = false;
      socket.destroy(); // the receiver dropped the kept-alive connection just as it was reused
      return;
    }
    req.resume();
    if (req.url === "/hang") return; // never answers
    if (req.url === "/reset") return void setTimeout(() => socket.destroy(), 50); // drops the connection unanswered
    const answer = () => res.end(req.url === "/big" ? "x".repeat(10_000) : "ok");
    req.on("end", () => (req.url === "/slow" ? setTimeout(answer, 100) : answer()));
  });
  server.on("connection", (s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  closePooledConnections();
  await new Promise((r) => server.close(r));
});

const post = (path: string, addresses = ["127.0.0.1"], timeoutMs = 2000) =>
  postPinned({
    url: new URL(`http://hook.test:${port}${path}`),
    addresses,
    headers: {},
    body: "{}",
    timeoutMs,
    maxResponseBytes: 1024,
  });

describe("pinned dialer connection pool", () => {
  test("reuses a connection to the same checked address", async () => {
    closePooledConnections();
    sockets.clear();
    for (let i = 0; i < 5; i++) expect(await post("/a")).toMatchObject({ outcome: "response", statusCode: 200, body: "ok" });
    expect(sockets.size).toBe(1);
  });

  test("a different checked address set gets its own connection", async () => {
    closePooledConnections();
    sockets.clear();
    await post("/a", ["127.0.0.1"]);
    expect(sockets.size).toBe(1);
    await post("/a", ["127.0.0.1", "127.0.0.2"]);
    expect(sockets.size).toBe(2);
    await post("/a", ["127.0.0.1"]);
    expect(sockets.size).toBe(2); // the first connection, still in its own pool
    await post("/a", ["127.0.0.1", "127.0.0.2"]);
    expect(sockets.size).toBe(2);
  });

  test("an answer cut at 1 KB closes its connection instead of returning it", async () => {
    closePooledConnections();
    sockets.clear();
    const big = await post("/big");
    expect(big.body).toHaveLength(1024);
    await post("/a");
    expect(sockets.size).toBe(2);
  });

  test("a kept-alive connection dropped by the receiver is retried once on a fresh one", async () => {
    closePooledConnections();
    sockets.clear();
    await post("/a");
    resetSecondRequestOnce = true;
    expect(await post("/a")).toMatchObject({ outcome: "response", statusCode: 200, body: "ok" });
    expect(sockets.size).toBe(2);
  });

  test("an answer that does not come in time is a timeout, and its connection is closed, not reused", async () => {
    closePooledConnections();
    sockets.clear();
    expect(await post("/hang", undefined, 300)).toMatchObject({ outcome: "timeout", statusCode: null });
    const [hung] = [...sockets];
    await eventually(async () => hung.destroyed, 2000, "the hung connection closed");
    expect(await post("/a")).toMatchObject({ outcome: "response", statusCode: 200 });
    expect(sockets.size).toBe(2);
  });

  test("requests at once get a connection each, at most 16, which later requests reuse", async () => {
    closePooledConnections();
    sockets.clear();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post("/slow")));
    expect(answers.every((a) => a.outcome === "response" && a.statusCode === 200)).toBe(true);
    expect(sockets.size).toBe(16);
    for (let i = 0; i < 3; i++) await post("/a");
    expect(sockets.size).toBe(16);
  });

  test("a connection still opening when the deadline passes is a timeout, and is closed", async () => {
    // a TCP server that never answers the TLS handshake: the connection never becomes usable
    const silent = new Set<Socket>();
    let closed = 0;
    const tcp = net.createServer((s) => {
      silent.add(s);
      s.resume(); // reads (and drops) the handshake, so the client's close is seen
      s.on("close", () => closed++);
    });
    await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
    try {
      const r = await postPinned({
        url: new URL(`https://hook.test:${(tcp.address() as AddressInfo).port}/a`),
        addresses: ["127.0.0.1"],
        headers: {},
        body: "{}",
        timeoutMs: 300,
      });
      expect(r).toMatchObject({ outcome: "timeout", statusCode: null });
      await eventually(async () => silent.size === 1 && closed === 1, 2000, "the opening connection closed");
    } finally {
      for (const s of silent) s.destroy();
      await new Promise((r) => tcp.close(r));
    }
  });

  test("a request failing on a connection another waits for leaves that one its turn", async () => {
    closePooledConnections();
    sockets.clear();
    // 16 connections, each with a request out; the 17th waits behind the first, which then fails
    const first = post("/reset");
    const others = Array.from({ length: 15 }, () => post("/slow"));
    const waiting = post("/a");
    expect(await first).toMatchObject({ outcome: "error", statusCode: null });
    expect(await waiting).toMatchObject({ outcome: "response", statusCode: 200, body: "ok" });
    expect((await Promise.all(others)).every((a) => a.statusCode === 200)).toBe(true);
  });
});
