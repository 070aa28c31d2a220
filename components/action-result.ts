import { isApiError, describeApiError } from "@/lib/api/errors";
import { isAppError } from "@/lib/errors";

// What the app's server actions answer: data on success, or a message (and, where the service
// named a field, messages per field) on failure. Expected failures never throw to the client;
// Next hides thrown messages in production.
export type ActionResult<T = undefined> =
  | { ok: true; data: T }
  | { ok: false; error: string; code?: string; fields?: Record<string, string>; key?: string };

export function ok<T>(data: T): ActionResult<T> {
  return { ok: true, data };
}

/**
 * Turns a service failure into an ActionResult. Validation messages that start with or mention a
 * known field name (as lib/links reports them) are placed beside that field.
 */
export function failure(e: unknown, fieldNames: string[] = []): ActionResult<never> {
  if (isApiError(e)) {
    const b = e.body;
    if (b.error === "validation") {
      const fields: Record<string, string> = {};
      const rest: string[] = [];
      for (const m of b.messages) {
        const f = fieldFor(m, fieldNames);
        if (f) fields[f] = fields[f] ? `${fields[f]} ${m}` : m;
        else rest.push(m);
      }
      return { ok: false, code: "validation", error: rest.length ? rest.join(" ") : "Check the highlighted fields.", fields };
    }
    if (b.error === "alias_taken") return { ok: false, code: b.error, error: describeApiError(e), fields: fieldNames.includes("alias") ? { alias: describeApiError(e) } : undefined };
    if (b.error === "feature") return { ok: false, code: b.error, key: b.key, error: describeApiError(e) };
    if (b.error === "quota") return { ok: false, code: b.error, key: b.key, error: describeApiError(e) };
    return { ok: false, code: b.error, error: describeApiError(e) };
  }
  if (isAppError(e)) return { ok: false, code: e.code, error: e.message };
  throw e;
}

function fieldFor(message: string, fieldNames: string[]): string | null {
  const head = /^([A-Za-z_.]+)\s*[:\s]/.exec(message)?.[1];
  if (head) {
    const root = head.split(".")[0];
    const exact = fieldNames.find((f) => f.toLowerCase() === root.toLowerCase());
    if (exact) return exact;
  }
  const lower = message.toLowerCase();
  // Longest names first, so "fallbackUrl" wins over "url".
  for (const f of [...fieldNames].sort((a, b) => b.length - a.length)) {
    const spaced = f.replace(/([A-Z])/g, " $1").toLowerCase();
    if (lower.includes(f.toLowerCase()) || lower.includes(spaced)) return f;
  }
  return null;
}
