import type { z } from "zod";
import { parseInput, ServiceError } from "../errors.ts";

// Reading a request's query and JSON body into a route's zod schemas. Every problem is a 400
// validation error with readable messages; nothing here can fail with a 500.

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** `input` through `schema`; `prefix` ("query ") starts each problem's line. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, prefix = ""): z.output<S> {
  try {
    return parseInput(schema, input);
  } catch (e) {
    if (!prefix || !(e instanceof ServiceError)) throw e;
    throw ServiceError.validation(
      e.issues.map((i) => (i.path ? { path: prefix + i.path, message: i.message } : { path: "", message: prefix + i.message })),
    );
  }
}

/**
 * The query string as an object of strings; a parameter given twice is refused, except the
 * `repeatable` ones, which come as arrays (even when given once).
 */
export function queryObject(url: URL, repeatable: string[] = []): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const twice = new Set<string>();
  for (const [k, v] of url.searchParams) {
    if (repeatable.includes(k)) {
      out[k] = [...((out[k] as string[] | undefined) ?? []), v];
      continue;
    }
    if (Object.hasOwn(out, k)) twice.add(k);
    out[k] = v;
  }
  if (twice.size) throw ServiceError.validation([...twice].map((k) => ({ path: k, message: "given more than once" })));
  return out;
}

function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  return value.split(";")[0].trim().toLowerCase() === "application/json";
}

/**
 * The body as a string of at most `limit` bytes of UTF-8. A larger body is read to its end and
 * dropped (so the client still gets the 400 on an open connection), up to a hard cap.
 */
async function readText(req: Request, limit: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  const tooLarge = () => ServiceError.validation(`Body is larger than ${limit} bytes.`);
  const reader = req.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = declared > limit;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The client went away mid-upload: its problem, not a server error (and no one reads the answer).
      throw ServiceError.validation("The request body was not received completely.");
    });
    if (done) break;
    total += value.byteLength;
    if (total > limit) over = true;
    if (over) {
      if (total > DRAIN_LIMIT) {
        await reader.cancel().catch(() => {});
        break;
      }
      continue;
    }
    chunks.push(value);
  }
  if (over) throw tooLarge();
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw ServiceError.validation("Body is not valid UTF-8.");
  }
}

/** A JSON body parsed by `schema`: Content-Type application/json, size, JSON syntax, then shape. */
export async function readJsonBody<S extends z.ZodType>(req: Request, schema: S, limit = DEFAULT_MAX_BODY_BYTES): Promise<z.output<S>> {
  const contentType = req.headers.get("content-type");
  if (!isJsonContentType(contentType)) {
    await readText(req, 0).catch(() => {}); // drain
    throw ServiceError.validation(`Content-Type must be application/json${contentType ? ` (got ${contentType.slice(0, 100)})` : ""}.`);
  }
  const text = await readText(req, limit);
  if (text.trim() === "") throw ServiceError.validation("Body is required: a JSON object.");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ServiceError.validation("Body is not valid JSON.");
  }
  return parseWith(schema, value);
}
