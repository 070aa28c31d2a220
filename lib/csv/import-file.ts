import { convertForeignRecord, detectForeignFormat, type Detection } from "./foreign.ts";
import { parseCsv, parseCsvRecords } from "./index.ts";

// An import file as Linkhop records: Linkhop's own columns as they are, another service's export
// (Bitly, Rebrandly, Short.io, Dub; see foreign.ts) converted column by column. Pure and
// browser-safe: the import page previews this before anything is created.

export type ImportRecords = {
  /** the header as written (trimmed, lower-cased) */
  header: string[];
  /** the other service whose export this is, with the mapping of each column; null for Linkhop's columns */
  detection: Detection | null;
  /** one record per data row, keyed by Linkhop import columns (or the file's own headers) */
  records: Record<string, string>[];
  error: string | null;
};

export function readImportRecords(text: string): ImportRecords {
  const { header, records, error } = parseCsvRecords(text);
  if (error) return { header, detection: null, records, error };
  const detection = detectForeignFormat(parseCsv(text).rows[0] ?? []);
  return { header, detection, records: detection ? records.map((r) => convertForeignRecord(detection, r)) : records, error: null };
}
