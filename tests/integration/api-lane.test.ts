import http from "node:http";
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, makeWorkspace, startApiTest, type Answer, type ApiTestEnv } from "../support/api.ts";

// server.ts answers /api/v1 through its lane (lib/api/lane.ts): the same route handlers as Next's
// route files (lib/api/endpoints.ts), without Next's request machinery. Next still answers what the
// lane leaves (an escaped path, HEAD, OPTIONS); its answers carry its router's Vary (rsc, ...),
// which is how these tests tell the two doors apart.

let env: ApiTestEnv;
let key: string;

beforeAll(async () => {
  env = await startApiTest();
  key = (await makeWorkspace("pro")).key!;
});
afterAll(async () => {
  await env?.stop();
});

/** A GET with raw (undecoded) bytes of the answer. */
function rawGet(
  pathAndQuery: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: env.app.port, path: pathAndQuery, method: "GET", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (d: Buffer) => chunks.push(d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const answeredByNext = (a: { headers: http.IncomingHttpHeaders }) => /\brsc\b/i.test(String(a.headers.vary ?? ""));
const sameAnswer = (a: Answer) => ({ status: a.status, body: a.body, type: a.headers["content-type"], cache: a.headers["cache-control"] });

describe("the API lane", () => {
  it("answers with the handler Next would call: the same status, body and headers as Next for the same link", async () => {
    const made = await call(env.app, "POST", "/api/v1/links", { key, json: { url: "https://example.com/lane", alias: "lanetest" } });
    expect(made.status, made.text).toBe(201);
    expect(answeredByNext(made)).toBe(false);

    const lane = await call(env.app, "GET", "/api/v1/links/lanetest", { key });
    // "%6c" is "l": Next decodes the path and calls the same handler with the same code
    const next = await call(env.app, "GET", "/api/v1/links/%6canetest", { key });
    expect(answeredByNext(lane)).toBe(false);
    expect(answeredByNext(next)).toBe(true);
    expect(lane.status).toBe(200);
    expect(sameAnswer(lane)).toEqual(sameAnswer(next));
    expect(lane.body.url).toBe("https://example.com/lane");
    expect(lane.headers["x-request-id"]).toMatch(/\S/);
    expect(lane.headers["x-ratelimit-limit"]).toBe(next.headers["x-ratelimit-limit"]);
    expect(lane.headers["x-frame-options"]).toBe(next.headers["x-frame-options"]);
    expect(lane.headers.vary).toBe("Accept-Encoding");
    expect(Number(lane.headers["content-length"])).toBe(Buffer.byteLength(lane.text));

    // an unknown path and a missing key: the catch-all's answers, through the lane too
    const unknown = await call(env.app, "GET", "/api/v1/no/such/path", { key });
    expect([unknown.status, unknown.body.error, answeredByNext(unknown)]).toEqual([404, "not_found", false]);
    const anonymous = await call(env.app, "DELETE", "/api/v1/links/lanetest", { key: null });
    expect([anonymous.status, anonymous.text]).toEqual([401, '{"error":"unauthorized"}']);
  });

  it("compresses an answer of 1 KB or more when the client accepts it, and sends a small one as it is", async () => {
    for (let i = 0; i < 8; i++) {
      const a = await call(env.app, "POST", "/api/v1/links", {
        key,
        json: { url: `https://example.com/compressed/${i}`, title: "x".repeat(100) },
      });
      expect(a.status, a.text).toBe(201);
    }
    const plain = await rawGet("/api/v1/links?size=50", { authorization: `Bearer ${key}` });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThanOrEqual(1024);
    const links = JSON.parse(plain.bytes.toString("utf8")).links;
    expect(links.length).toBe(9);

    const gz = await rawGet("/api/v1/links?size=50", { authorization: `Bearer ${key}`, "accept-encoding": "gzip, deflate, br" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(Number(gz.headers["content-length"])).toBe(gz.bytes.length);
    expect(JSON.parse(zlib.gunzipSync(gz.bytes).toString("utf8")).links).toEqual(links);

    const df = await rawGet("/api/v1/links?size=50", { authorization: `Bearer ${key}`, "accept-encoding": "deflate" });
    expect(df.headers["content-encoding"]).toBe("deflate");
    expect(JSON.parse(zlib.inflateSync(df.bytes).toString("utf8")).links).toEqual(links);

    const small = await rawGet("/api/v1/links", { "accept-encoding": "gzip" });
    expect(small.status).toBe(401);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.bytes.toString("utf8")).toBe('{"error":"unauthorized"}');
  });

  it("streams an export whole, compressed when accepted", async () => {
    const plain = await rawGet("/api/v1/links/export", { authorization: `Bearer ${key}` });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-type"]).toMatch(/^text\/csv/);
    expect(plain.headers["content-disposition"]).toMatch(/^attachment; filename=/);
    const csv = plain.bytes.toString("utf8");
    expect(csv.trim().split("\n").length).toBeGreaterThanOrEqual(2);
    expect(csv).toContain("https://example.com/lane");

    const gz = await rawGet("/api/v1/links/export", { authorization: `Bearer ${key}`, "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(zlib.gunzipSync(gz.bytes).toString("utf8")).toBe(csv);
  });

  it("leaves HEAD and OPTIONS to Next, which answers them as before", async () => {
    const head = await call(env.app, "HEAD", "/api/v1/links", { key: null });
    expect(head.status).toBe(401);
    expect(head.text).toBe("");
    expect(answeredByNext(head)).toBe(true);
    const options = await call(env.app, "OPTIONS", "/api/v1/links", { key: null });
    expect(options.status).toBeLessThan(500);
    expect(answeredByNext(options)).toBe(true);
  });
});
