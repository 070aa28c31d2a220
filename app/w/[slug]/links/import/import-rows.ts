import { describeErrorBody, type ErrorBody } from "@/lib/api/error-body";
import type { Detection } from "@/lib/csv/foreign";
import { columnFor, type ConvertedRow } from "@/lib/csv/link-rows";
import { createLinkSchema } from "@/lib/links/schemas";

// What the importer's steps share: the parsed file, each row's outcome, and reading a row's cells.

export const CHUNK = 100;
export const MAX_ROWS = 10_000;

export type Parsed = {
  fileName: string;
  header: string[];
  ignored: string[];
  rows: ConvertedRow[];
  records: Record<string, string>[];
  detection: Detection | null;
};
export type Outcome = { row: number; url: string; alias: string; status: number; short?: string; id?: number; reason?: string };

/** The API's own body schema, in the browser: a row it refuses is reported without being sent. */
export function checkRow(r: ConvertedRow): ConvertedRow {
  if (!("body" in r)) return r;
  const parsed = createLinkSchema.safeParse(r.body);
  if (parsed.success) return r;
  return {
    row: r.row,
    errors: parsed.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message)),
  };
}

export function reasonOf(body: ErrorBody): string {
  return describeErrorBody(body);
}

const cell = (record: Record<string, string>, col: string) =>
  Object.entries(record)
    .find(([h]) => columnFor(h) === col)?.[1]
    ?.trim() ?? "";
export const recordUrl = (record: Record<string, string>) => cell(record, "url");
export const recordAlias = (record: Record<string, string>) => cell(record, "alias");

export function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
