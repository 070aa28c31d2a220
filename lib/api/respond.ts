import { ServiceError } from "../errors.ts";
import { log } from "../log/index.ts";
import { newRequestId } from "../log/request-id.ts";
import { errorBody, errorStatus } from "./error-body.ts";

export { errorBody, errorStatus, type ErrorBody } from "./error-body.ts";

// The one place where an API answer is written: a success body, a ServiceError as exactly the body
// of the error table in docs/api.md (error plus the table's extra fields, nothing else), or anything
// else as 500 server_error with a reference that is also in the X-Error-Reference header and the
// server log (never the failing library's text). The reference is the request's id (X-Request-Id,
// lib/log/request-id.ts), so the log line of the error and of the request carry it too.

const BASE_HEADERS = { "Cache-Control": "no-store" };

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...BASE_HEADERS, ...headers } });
}

export function errorResponse(e: ServiceError, headers: Record<string, string> = {}): Response {
  return json(errorStatus(e), errorBody(e), headers);
}

/** The 401 answer: the same bytes and headers for a missing, unknown, revoked or expired key and an inactive workspace. */
export function unauthorizedResponse(): Response {
  return json(401, { error: "unauthorized" });
}

/** Any failure: a ServiceError as its body, anything else as a logged 500 whose reference is the request id. */
export function failureResponse(
  e: unknown,
  where: string,
  headers: Record<string, string> = {},
  requestId: string = newRequestId(),
): Response {
  if (e instanceof ServiceError) return errorResponse(e, headers);
  log("api").error({ requestId, err: e }, `server_error ${where}`);
  return json(
    500,
    {
      error: "server_error",
      message: "Something went wrong on our side. Check whether the change was made before retrying once.",
      reference: requestId,
    },
    { ...headers, "X-Error-Reference": requestId, "X-Request-Id": requestId },
  );
}
