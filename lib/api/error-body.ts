import { issueText, ServiceError, type ServiceErrorCode } from "../errors.ts";

// A ServiceError as the API's error body and status (docs/api.md "Endpoints"). No server-only imports:
// the app's import page describes the bodies of bulk results in the browser.

/** The API's error bodies (docs/api.md "Endpoints"); forbidden, conflict and limit have no endpoint yet. */
export type ErrorBody =
  | { error: "validation"; messages: string[] }
  | { error: "unauthorized" }
  | { error: "feature"; key: string; upgrade: true }
  | { error: "quota"; key: string; limit: number; current: number; upgrade: true }
  | { error: "not_found" }
  | { error: "alias_taken"; alias: string }
  | { error: "ambiguous_code"; code: string; domains: (string | null)[] }
  | { error: "rate_limit"; limit: number }
  | { error: "forbidden" | "conflict" | "limit"; message: string }
  | { error: "server_error"; message: string; reference?: string };

const STATUS: Record<ServiceErrorCode, number> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  feature: 403,
  quota: 403,
  limit: 403,
  not_found: 404,
  conflict: 409,
  alias_taken: 409,
  ambiguous_code: 409,
  rate_limit: 429,
};

export function errorStatus(e: ServiceError): number {
  return STATUS[e.code];
}

/** The body for an error, with only the fields its row of the error table lists. */
export function errorBody(e: ServiceError): ErrorBody {
  const x = e.extra;
  switch (e.code) {
    case "validation":
      return { error: e.code, messages: e.issues.length ? e.issues.map(issueText) : [e.message] };
    case "feature":
      return { error: e.code, key: String(x.key), upgrade: true };
    case "quota":
      return { error: e.code, key: String(x.key), limit: Number(x.limit), current: Number(x.current), upgrade: true };
    case "alias_taken":
      return { error: e.code, alias: String(x.alias) };
    case "ambiguous_code":
      return { error: e.code, code: String(x.code), domains: [...(x.domains ?? [])] };
    case "rate_limit":
      return { error: e.code, limit: Number(x.limit) };
    case "forbidden":
    case "conflict":
    case "limit":
      return { error: e.code, message: e.message };
    default:
      return { error: e.code };
  }
}

/** A short English sentence for an error body (the app's import report shows these per row). */
export function describeErrorBody(b: ErrorBody): string {
  switch (b.error) {
    case "validation":
      return b.messages.join(" ");
    case "feature":
      return ServiceError.feature(b.key).message;
    case "quota":
      return ServiceError.quota(b.key, b.limit, b.current).message;
    case "alias_taken":
      return ServiceError.aliasTaken(b.alias).message;
    case "ambiguous_code":
      return ServiceError.ambiguous(b.code, b.domains).message;
    case "rate_limit":
      return ServiceError.rateLimit(b.limit).message;
    case "not_found":
      return ServiceError.notFound().message;
    case "unauthorized":
      return ServiceError.unauthorized().message;
    case "forbidden":
    case "conflict":
    case "limit":
      return b.message;
    default:
      return "Something went wrong on our side.";
  }
}
