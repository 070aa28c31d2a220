import type { z } from "zod";

// The one error type of every service (links, domains, keys, members, webhooks, workspaces): a
// code, a sentence for people, the input problems by field path, and the extra fields some API
// error bodies carry. Three small mappers turn it into an answer: lib/api/respond.ts (API bodies),
// lib/actions/result.ts (server-action results) and lib/admin/cli.ts (the admin CLI's JSON).
// Anything that is not a ServiceError is a bug or an outage: callers log it and answer generically.

export type ServiceErrorCode =
  | "validation"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "limit"
  | "feature"
  | "quota"
  | "alias_taken"
  | "ambiguous_code"
  | "rate_limit";

/** One input problem: the field's path ("targeting.geo.US"; "" for the input as a whole) and what is wrong. */
export type Issue = { path: string; message: string };

/** Fields some API error bodies carry besides `error` (see lib/api/respond.ts errorBody). */
export type ServiceErrorExtra = {
  key?: string;
  limit?: number;
  current?: number;
  alias?: string;
  code?: string;
  domains?: (string | null)[];
};

export class ServiceError extends Error {
  readonly issues: readonly Issue[];
  readonly extra: Readonly<ServiceErrorExtra>;

  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    options: { issues?: Issue[]; extra?: ServiceErrorExtra } = {},
  ) {
    super(message);
    this.name = "ServiceError";
    this.issues = options.issues ?? [];
    this.extra = options.extra ?? {};
  }

  /**
   * Bad input. `message` defaults to the issues' messages (each once), which suits schemas whose
   * messages are whole sentences; lib/links passes the "path: message" form of its short messages.
   */
  static validation(issues: Issue[] | string, message?: string): ServiceError {
    const list = typeof issues === "string" ? [{ path: "", message: issues }] : issues;
    return new ServiceError("validation", message ?? [...new Set(list.map((i) => i.message))].join(" "), { issues: list });
  }
  static unauthorized(): ServiceError {
    return new ServiceError("unauthorized", "Not signed in.");
  }
  static forbidden(message: string): ServiceError {
    return new ServiceError("forbidden", message);
  }
  static notFound(message = "Not found."): ServiceError {
    return new ServiceError("not_found", message);
  }
  static conflict(message: string): ServiceError {
    return new ServiceError("conflict", message);
  }
  /** A plan's count limit (live API keys, webhook endpoints). */
  static limit(message: string): ServiceError {
    return new ServiceError("limit", message);
  }
  /** The plan lacks feature `key`. */
  static feature(key: string, message = `Your plan does not include ${key}. Upgrade to use it.`): ServiceError {
    return new ServiceError("feature", message, { extra: { key } });
  }
  /** A monthly allowance is used up. */
  static quota(key: string, limit: number, current: number): ServiceError {
    return new ServiceError("quota", `${key} allowance used: ${current} of ${limit}. Upgrade or wait for the monthly reset.`, {
      extra: { key, limit, current },
    });
  }
  static aliasTaken(alias: string): ServiceError {
    const message = `The alias "${alias}" is already taken on that domain.`;
    return new ServiceError("alias_taken", message, { extra: { alias }, issues: [{ path: "alias", message }] });
  }
  static ambiguous(code: string, domains: (string | null)[]): ServiceError {
    return new ServiceError("ambiguous_code", `The code ${code} exists on several domains; choose one.`, { extra: { code, domains } });
  }
  static rateLimit(limit: number): ServiceError {
    return new ServiceError("rate_limit", "Too many requests; try again in a minute.", { extra: { limit } });
  }
}

/** An issue as one line: "path: message", or the message alone for the input as a whole. */
export function issueText(issue: Issue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** zod's issues as Issues (paths joined with "."). */
export function toIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Issue[] {
  return issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
}

/** zod's issues as the lines of a validation error: "field: message". */
export function issueMessages(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string[] {
  return toIssues(issues).map(issueText);
}

/**
 * `input` parsed by `schema`, or a validation ServiceError naming every problem. Never throws
 * anything else: input zod cannot even walk (a throwing getter) is a validation error too.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
  options: { message?: (issues: Issue[]) => string } = {},
): z.output<S> {
  let r: ReturnType<S["safeParse"]>;
  try {
    r = schema.safeParse(input) as ReturnType<S["safeParse"]>;
  } catch {
    throw ServiceError.validation("The input could not be read.");
  }
  if (r.success) return r.data as z.output<S>;
  const issues = toIssues(r.error.issues);
  throw ServiceError.validation(issues, options.message?.(issues));
}

/** The "path: message" lines joined: the message of lib/links' validation errors. */
export const joinedIssueTexts = (issues: Issue[]): string => issues.map(issueText).join(" ");
