import { randomBytes } from "node:crypto";
import { ServiceError } from "../errors.ts";
import { errorBody, errorStatus } from "./error-body.ts";

export { errorBody, errorStatus, type ErrorBody } from "./error-body.ts";

// The one place where an API answer is written: a success body, a ServiceError as exactly the body
// of the README's error table (error plus the table's extra fields, nothing else), or anything
// else as 500 server_error with a reference that is also in the X-Error-Reference header and the
// server log (never the failing library's text).

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

export function newErrorReference(): string {
  return "err_" + randomBytes(8).toString("hex");
}

/** Any failure: a ServiceError as its body, anything else as a logged 500 with a reference. */
export function failureResponse(e: unknown, where: string, headers: Record<string, string> = {}): Response {
  if (e instanceof ServiceError) return errorResponse(e, headers);
  const reference = newErrorReference();
  const stack = e instanceof Error ? (e.stack ?? e.message) : String(e);
  console.error(`[api] server_error ${reference} ${where}\n${stack}`);
  return json(
    500,
    {
      error: "server_error",
      message: "Something went wrong on our side. Check whether the change was made before retrying once.",
      reference,
    },
    { ...headers, "X-Error-Reference": reference },
  );
}
