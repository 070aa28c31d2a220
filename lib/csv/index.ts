// A small RFC 4180 CSV reader and writer: the bulk import reads files with it in the browser, and
// every CSV the app produces is written with toCsv (formula cells neutralised, see
// neutraliseFormula). Quoted fields may hold commas, quotes ("") and line breaks; CRLF, LF and CR
// line endings are accepted; a UTF-8 byte order mark is dropped; blank lines are skipped.

export type CsvParseResult = { rows: string[][]; error: string | null };

export function parseCsv(text: string): CsvParseResult {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false; // inside a quoted field
  let wasQuoted = false; // the current field started with a quote
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;

  const endField = () => {
    row.push(field);
    field = "";
    wasQuoted = false;
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
  };

  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === "\n") line++;
        field += c;
      }
      continue;
    }
    if (c === '"') {
      if (field === "" && !wasQuoted) {
        quoted = true;
        wasQuoted = true;
        continue;
      }
      // A quote inside an unquoted field: RFC 4180 forbids it; keep it as text (what spreadsheets do).
      field += c;
    } else if (c === ",") endField();
    else if (c === "\r") {
      if (text[i + 1] === "\n") i++;
      endRow();
      line++;
    } else if (c === "\n") {
      endRow();
      line++;
    } else if (wasQuoted) {
      return { rows, error: `Line ${line}: unexpected text after a closing quote.` };
    } else field += c;
  }
  if (quoted) return { rows, error: `Line ${line}: a quoted field is not closed.` };
  if (field !== "" || wasQuoted || row.length) endRow();
  return { rows, error: null };
}

/** Rows with a header line mapped to objects keyed by the (trimmed, lower-cased) header names. */
export function parseCsvRecords(text: string): { header: string[]; records: Record<string, string>[]; error: string | null } {
  const { rows, error } = parseCsv(text);
  if (error) return { header: [], records: [], error };
  if (rows.length === 0) return { header: [], records: [], error: "The file is empty." };
  const header = rows[0].map((h) => h.trim().toLowerCase());
  const records = rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ""])));
  return { header, records, error: null };
}

/** Characters that make a spreadsheet read a cell as a formula (or, for tab and CR, hide one). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * CSV formula injection: a text cell starting with =, +, -, @, tab or carriage return is opened
 * by Excel, LibreOffice and Google Sheets as a formula (=HYPERLINK(...), =cmd|...). Such a cell
 * gets a leading apostrophe, which spreadsheets show as plain text. Every CSV the app writes goes
 * through toCsv, which applies this to every text cell; numbers (a row number, a count) are
 * written as they are.
 */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

function quoteField(value: unknown): string {
  const s = value === null || value === undefined ? "" : typeof value === "string" ? neutraliseFormula(value) : String(value);
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows to CSV text (CRLF line ends), every text cell passed through neutraliseFormula. */
export function toCsv(rows: unknown[][]): string {
  return rows.map((r) => r.map(quoteField).join(",")).join("\r\n") + "\r\n";
}
