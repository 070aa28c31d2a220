import type http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { API_ENDPOINTS, UNKNOWN_API_PATH, type RouteHandler } from "./endpoints.ts";
import { failureResponse } from "./respond.ts";

// The API lane: server.ts answers /api/v1 requests itself, calling the route handler that Next.js
// would call (THE table, lib/api/endpoints.ts, which the route files under app/api/v1 export too).
// Why: Next's request machinery (its router, the web Request with its body stream, the abort
// signal, the response piping) cost about 1.1 ms of CPU per API POST on this machine, more than
// the create behind it (bench:api: a create took 1.8 ms of server CPU through Next, 0.7 ms here).
//
// What the lane takes: GET, POST, PUT, PATCH and DELETE on a path under /api/v1 (as server.ts has
// normalized it) with no "%" escape in it, answered by the row that names it or, when no row has
// its shape, by the catch-all's handler (UNKNOWN_API_PATH: 401, else 404). Everything else stays
// with Next as before: HEAD and OPTIONS (Next's automatic answers), an escaped path (Next's decoding
// decides it), and a method a row leaves out (405).
//
// What stays the same: the handler's status, headers and body, and the headers server.ts set before
// (request id, security headers). Like Next's compression, a body goes gzip (or deflate) when the
// client accepts it, with `Vary: Accept-Encoding` on every answer; unlike Next, a JSON body under
// 1 KB is sent as it is (compressing 24 bytes only makes them longer). A streamed body (CSV
// exports) is piped with backpressure and cancelled when the client goes away.

export type LaneMatch = { handler: RouteHandler; params: Record<string, string> };

type Route = { segments: string[]; dynamic: number; methods: Partial<Record<string, RouteHandler>> };

const ROUTES: Route[] = Object.entries(API_ENDPOINTS)
  .map(([path, methods]) => {
    const segments = path.split("/").slice(1);
    return { segments, dynamic: segments.filter((s) => s.startsWith("[")).length, methods };
  })
  // a static segment wins over a dynamic one (links/bulk before links/[code]), as in Next
  .sort((a, b) => a.dynamic - b.dynamic);

const LANE_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/**
 * The handler and params for `method` on `url` (an /api/v1 path and its query, as normalized by
 * server.ts), or null: Next answers.
 */
export function matchApiLane(method: string | undefined, url: string | undefined): LaneMatch | null {
  if (!method || !url || !LANE_METHODS.has(method)) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  // an escaped path is left to Next's decoding
  if (path.includes("%")) return null;
  const segments = path.split("/").slice(1);
  for (const route of ROUTES) {
    if (route.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; ok && i < segments.length; i++) {
      const want = route.segments[i];
      const got = segments[i];
      if (want.startsWith("[")) params[want.slice(1, -1)] = got;
      else ok = want === got;
    }
    if (!ok) continue;
    const handler = route.methods[method];
    return handler ? { handler, params } : null;
  }
  return { handler: UNKNOWN_API_PATH[method as keyof typeof UNKNOWN_API_PATH], params: {} };
}

/** The web Request for `req` (its body streamed), or null when the request cannot be one (Next then answers). */
function webRequest(req: http.IncomingMessage, origin: string): Request | null {
  try {
    const headers = new Headers();
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    return new Request(origin + req.url, {
      method: req.method,
      headers,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
    } as RequestInit);
  } catch {
    return null;
  }
}

const MIN_COMPRESSED_BYTES = 1024;
const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);

/** gzip or deflate when the client accepts one (q > 0), gzip first; null: identity. */
export function acceptedEncoding(header: string | string[] | undefined): "gzip" | "deflate" | null {
  const value = Array.isArray(header) ? header.join(",") : (header ?? "");
  const q = new Map<string, number>();
  for (const part of value.split(",")) {
    const [name, ...params] = part.split(";").map((p) => p.trim().toLowerCase());
    if (!name) continue;
    const qParam = params.find((p) => p.startsWith("q="));
    q.set(name, qParam ? Number(qParam.slice(2)) || 0 : 1);
  }
  const allows = (name: string) => (q.get(name) ?? q.get("*") ?? 0) > 0;
  return allows("gzip") ? "gzip" : allows("deflate") ? "deflate" : null;
}

const compressible = (type: string | null) => !!type && /^(application\/(json|[\w.+-]+\+json)|text\/)/i.test(type);

/**
 * Answers `req` with `match`'s handler. Returns false, having touched nothing, when the request
 * cannot be made a web Request: the caller hands it to Next.
 */
export function answerThroughLane(req: http.IncomingMessage, res: http.ServerResponse, match: LaneMatch, origin: string): boolean {
  const request = webRequest(req, origin);
  if (!request) return false;
  void answer(req, res, request, match);
  return true;
}

async function answer(req: http.IncomingMessage, res: http.ServerResponse, request: Request, match: LaneMatch): Promise<void> {
  let response: Response;
  try {
    response = await match.handler(request, { params: Promise.resolve(match.params) });
  } catch (e) {
    response = failureResponse(e, `${req.method} ${req.url?.split("?")[0]}`, {}, String(res.getHeader("x-request-id") ?? ""));
  }
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie" && res.getHeader(name) !== value) res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("Set-Cookie", cookies);
  res.setHeader("Vary", "Accept-Encoding");
  const type = response.headers.get("content-type");
  const encoding =
    response.body && compressible(type) && !response.headers.has("content-encoding")
      ? acceptedEncoding(req.headers["accept-encoding"])
      : null;
  if (!response.body) return void res.end();
  try {
    if (type && /^application\/json/i.test(type)) {
      // JSON answers are built whole in memory: sent with their length
      let body = Buffer.from(await response.arrayBuffer());
      if (encoding && body.length >= MIN_COMPRESSED_BYTES) {
        body = encoding === "gzip" ? await gzip(body) : await deflate(body);
        res.setHeader("Content-Encoding", encoding);
      }
      res.setHeader("Content-Length", body.length);
      res.end(body);
      return;
    }
    if (encoding) res.setHeader("Content-Encoding", encoding);
    const source = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
    // a client that goes away destroys the pipeline, which cancels the handler's stream
    if (encoding) await pipeline(source, encoding === "gzip" ? zlib.createGzip() : zlib.createDeflate(), res);
    else await pipeline(source, res);
  } catch {
    // the client went away (or the stream failed mid-answer): nothing more can be sent
    if (!res.headersSent) res.writeHead(500).end();
    else res.destroy();
  }
}
