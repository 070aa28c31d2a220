import { log } from "../log/index.ts";
import { acceptRequestId, REQUEST_ID_HEADER } from "../log/request-id.ts";

// One log line per /api/v1 request, written by the API wrapper (handler.ts) once the answer is
// known: method, path, status, duration, the request id and the workspace when the key was valid.
// Never the key, the query string (search text) or the client's address.

/** What the wrapper learns about a request while answering it. */
export type ApiRequest = { id: string; workspaceId?: number };

const MAX_PATH_LOGGED = 200;

/** Answers `req` through `answer`, with X-Request-Id on the answer and the request's log line. */
export async function withRequestLog(req: Request, answer: (request: ApiRequest) => Promise<Response>): Promise<Response> {
  const started = performance.now();
  // server.ts has put the request's id in this header (a valid one the client sent, or a new one)
  const request: ApiRequest = { id: acceptRequestId(req.headers.get(REQUEST_ID_HEADER)) };
  let status = 500;
  try {
    const response = await answer(request);
    response.headers.set("X-Request-Id", request.id);
    status = response.status;
    return response;
  } finally {
    log("api").info(
      {
        requestId: request.id,
        method: req.method,
        path: pathOf(req).slice(0, MAX_PATH_LOGGED),
        status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        workspaceId: request.workspaceId,
      },
      "request",
    );
  }
}

function pathOf(req: Request): string {
  try {
    return new URL(req.url).pathname;
  } catch {
    return "?";
  }
}
