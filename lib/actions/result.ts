import { issueText, ServiceError } from "../errors.ts";

// What the app's server actions answer: data on success, or a message (and, for a form that names
// its fields, messages per field taken from the error's issue paths) on failure. Expected failures
// never throw to the client; anything that is not a ServiceError is rethrown, and Next hides its
// message in production.
export type ActionResult<T = undefined> =
  { ok: true; data: T } | { ok: false; error: string; code?: string; fields?: Record<string, string>; key?: string };

export type ActionFailure = Extract<ActionResult, { ok: false }>;

export function ok<T>(data: T): ActionResult<T> {
  return { ok: true, data };
}

/**
 * A ServiceError as an ActionResult. With `fields` (the names the form shows errors beside), each
 * issue whose path starts with one of them goes beside that field and the rest form the message.
 */
export function actionFailure(e: unknown, fields?: readonly string[]): ActionFailure {
  if (!(e instanceof ServiceError)) throw e;
  const key = (e.code === "feature" || e.code === "quota") && e.extra.key !== undefined ? { key: e.extra.key } : {};
  if (!fields) return { ok: false, code: e.code, error: e.message, ...key };
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  for (const issue of e.issues) {
    const field = fields.find((f) => f === issue.path.split(".")[0]);
    const text = e.code === "validation" ? issueText(issue) : issue.message;
    if (field) byField[field] = byField[field] ? `${byField[field]} ${text}` : text;
    else rest.push(text);
  }
  if (e.code === "validation")
    return { ok: false, code: e.code, error: rest.length ? rest.join(" ") : "Check the highlighted fields.", fields: byField };
  return { ok: false, code: e.code, error: e.message, ...key, ...(Object.keys(byField).length ? { fields: byField } : {}) };
}
