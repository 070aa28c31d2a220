import { z } from "zod";
import { MAX_ID } from "../ids.ts";

// Values taken from page URLs (path segments, query parameters) before they reach a query. Row ids
// are PostgreSQL `integer`s (lib/ids.ts): text that is not a plain decimal in 1..2^31-1 names no
// row, and must not reach the database (where it would fail as out of range).

/** A row id written in a URL: "42" -> 42. */
export const idParam = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/)
  .transform(Number)
  .refine((n) => n <= MAX_ID);

/** The id in a URL segment, or null when it cannot name a row (the page answers 404). */
export function parseIdParam(raw: unknown): number | null {
  const r = idParam.safeParse(raw);
  return r.success ? r.data : null;
}
