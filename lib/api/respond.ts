import { randomBytes } from "node:crypto";
import { isApiError, type ApiError, type ApiErrorBody } from "./errors.ts";

// The one place where an API answer is written: a success body, an ApiError as exactly the spec's
// body (error plus the table's extra fields, nothing else), or an unexpected failure as 500
// server_error with a reference that is also in the X-Error-Reference header and the server log.

const BASE_HEADERS = { "Cache-Control": "no-store" };

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...BASE_HEADERS, ...headers } });
}

/** The spec's body for an error, with only the fields its row of the Errors table lists. */
export function errorBody(e: ApiError): ApiErrorBody {
  const b = e.body;
  switch (b.error) {
    case "validation":
      return { error: b.error, messages: [...b.messages] };
    case "feature":
      return { error: b.error, key: b.key, upgrade: true };
    case "quota":
      return { error: b.error, key: b.key, limit: b.limit, current: b.current, upgrade: true };
    case "alias_taken":
      return { error: b.error, alias: b.alias };
    case "ambiguous_code":
      return { error: b.error, code: b.code, domains: [...b.domains] };
    case "rate_limit":
      return { error: b.error, limit: b.limit };
    case "server_error":
      return b.reference === undefined ? { error: b.error, message: b.message } : { error: b.error, message: b.message, reference: b.reference };
    default:
      return { error: b.error };
  }
}

export function errorResponse(e: ApiError, headers: Record<string, string> = {}): Response {
  return json(e.status, errorBody(e), headers);
}

/** The 401 answer: the same bytes and headers for a missing, unknown, revoked or expired key and an inactive workspace. */
export function unauthorizedResponse(): Response {
  return json(401, { error: "unauthorized" });
}

export function newErrorReference(): string {
  return "err_" + randomBytes(8).toString("hex");
}

/** Any failure: an ApiError as its body, anything else as a logged 500 with a reference. */
export function failureResponse(e: unknown, where: string, headers: Record<string, string> = {}): Response {
  if (isApiError(e)) return errorResponse(e, headers);
  const reference = newErrorReference();
  const stack = e instanceof Error ? (e.stack ?? e.message) : String(e);
  console.error(`[api] server_error ${reference} ${where}\n${stack}`);
  return json(
    500,
    { error: "server_error", message: "Something went wrong on our side. Check whether the change was made before retrying once.", reference },
    { ...headers, "X-Error-Reference": reference },
  );
}
