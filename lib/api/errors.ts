// The one error type of the API. Every failure a service reports is an ApiError; lib/api/respond.ts
// turns it into exactly the body of the spec's Errors table, in one place.

export type ApiErrorBody =
  | { error: "validation"; messages: string[] }
  | { error: "unauthorized" }
  | { error: "feature"; key: string; upgrade: true }
  | { error: "quota"; key: string; limit: number; current: number; upgrade: true }
  | { error: "not_found" }
  | { error: "alias_taken"; alias: string }
  | { error: "ambiguous_code"; code: string; domains: (string | null)[] }
  | { error: "rate_limit"; limit: number }
  | { error: "server_error"; message: string; reference?: string };

const STATUS: Record<ApiErrorBody["error"], number> = {
  validation: 400,
  unauthorized: 401,
  feature: 403,
  quota: 403,
  not_found: 404,
  alias_taken: 409,
  ambiguous_code: 409,
  rate_limit: 429,
  server_error: 500,
};

export class ApiError extends Error {
  readonly status: number;
  constructor(readonly body: ApiErrorBody) {
    super(body.error === "validation" ? body.messages.join("; ") : body.error);
    this.status = STATUS[body.error];
  }

  static validation(...messages: string[]) {
    return new ApiError({ error: "validation", messages });
  }
  static unauthorized() {
    return new ApiError({ error: "unauthorized" });
  }
  static feature(key: string) {
    return new ApiError({ error: "feature", key, upgrade: true });
  }
  static quota(key: string, limit: number, current: number) {
    return new ApiError({ error: "quota", key, limit, current, upgrade: true });
  }
  static notFound() {
    return new ApiError({ error: "not_found" });
  }
  static aliasTaken(alias: string) {
    return new ApiError({ error: "alias_taken", alias });
  }
  static ambiguous(code: string, domains: (string | null)[]) {
    return new ApiError({ error: "ambiguous_code", code, domains });
  }
  static rateLimit(limit: number) {
    return new ApiError({ error: "rate_limit", limit });
  }
}

export function isApiError(e: unknown): e is ApiError {
  // Checked by shape, not instanceof: the custom server and Next's bundle load separate copies.
  return typeof e === "object" && e !== null && "body" in e && "status" in e && typeof (e as ApiError).body?.error === "string";
}

/** A short English sentence for the app's forms. */
export function describeApiError(e: ApiError): string {
  const b = e.body;
  switch (b.error) {
    case "validation":
      return b.messages.join(" ");
    case "feature":
      return `Your plan does not include ${b.key}. Upgrade to use it.`;
    case "quota":
      return `${b.key} allowance used: ${b.current} of ${b.limit}. Upgrade or wait for the monthly reset.`;
    case "not_found":
      return "Not found.";
    case "alias_taken":
      return `The alias "${b.alias}" is already taken on that domain.`;
    case "ambiguous_code":
      return `The code ${b.code} exists on several domains; choose one.`;
    case "rate_limit":
      return "Too many requests; try again in a minute.";
    case "unauthorized":
      return "Not signed in.";
    default:
      return "Something went wrong on our side.";
  }
}
