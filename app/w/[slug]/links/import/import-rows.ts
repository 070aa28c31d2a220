import { describeErrorBody, type ErrorBody } from "@/lib/api/error-body";
import type { Detection } from "@/lib/csv/foreign";
import { columnFor, type ConvertedRow } from "@/lib/links/csv-rows";
import { createLinkSchema } from "@/lib/links/schemas";
import { rowProblemsInWords } from "@/lib/links/row-problems";

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

/**
 * The API's own body schema, in the browser: a row it refuses is reported without being sent, its
 * problems in words (lib/links/row-problems.ts), each starting "Row N:".
 */
export function checkRow(r: ConvertedRow): ConvertedRow {
  if (!("body" in r)) return { row: r.row, errors: r.errors.map((e) => `Row ${r.row}: ${e}`) };
  const parsed = createLinkSchema.safeParse(r.body);
  if (parsed.success) return r;
  return { row: r.row, errors: rowProblemsInWords(r.row, parsed.error.issues, r.body) };
}

/**
 * The toast after an import: success when every row was created, a warning with the count and the
 * failed rows when most were (48 of 50 is a good import, not an error), an error when none was.
 */
export function importToast(outcomes: Outcome[]): { text: string; kind: "success" | "warning" | "error" } {
  const created = outcomes.filter((o) => o.status === 201).length;
  const failed = outcomes.filter((o) => o.status !== 201).map((o) => o.row);
  const links = (n: number) => `${n.toLocaleString("en")} link${n === 1 ? "" : "s"}`;
  if (failed.length === 0) return { text: `Imported ${links(created)}.`, kind: "success" };
  if (created === 0)
    return { text: `Nothing was imported: all ${outcomes.length.toLocaleString("en")} rows failed. See the results below.`, kind: "error" };
  const rows = failed.length <= 5 ? failed.join(", ") : `${failed.slice(0, 5).join(", ")} and ${failed.length - 5} more`;
  return {
    text: `Imported ${links(created)} of ${outcomes.length.toLocaleString("en")}; ${failed.length} failed (row${failed.length === 1 ? "" : "s"} ${rows}). See the results below.`,
    kind: "warning",
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
