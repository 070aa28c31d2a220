import { pooledRandomBytes } from "../keys/random.ts";

// Request ids. server.ts gives every request except a short-link redirect one: the client's
// X-Request-Id when it is a safe token (a proxy or client that already names its requests), else a
// new one. It replaces the request's x-request-id header with it, so the /api/v1 wrapper, route
// handlers and Next's error hook (instrumentation.ts) read the same value, and answers it in the
// X-Request-Id response header. A 500's `reference` (and X-Error-Reference) is this id, so a
// client's report leads to the log lines of its request.

export const REQUEST_ID_HEADER = "x-request-id";

/** A new id: the shape error references always had (err_ + 16 hex digits). */
export function newRequestId(): string {
  return "err_" + pooledRandomBytes(8).toString("hex");
}

// Bounded and plain: the id goes into log lines and response headers as it came.
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/** The client's id when it is safe to keep (1 to 100 of A-Z a-z 0-9 . _ : -), else a new one. */
export function acceptRequestId(incoming: string | string[] | null | undefined): string {
  return typeof incoming === "string" && SAFE_ID.test(incoming) ? incoming : newRequestId();
}
