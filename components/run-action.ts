import type { ActionResult } from "@/lib/actions/result";

/**
 * Runs a server action for react-query: its data, or a thrown Error carrying the action's message
 * (and the whole failed result as `result`, for forms that show messages per field).
 */
export async function runAction<T>(p: Promise<ActionResult<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw Object.assign(new Error(r.error), { result: r });
  return r.data;
}
