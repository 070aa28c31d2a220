import { toCsv } from "../csv/index.ts";
import { db } from "../db/client.ts";
import type { ClickQuery, ExportRow } from "./query-sql.ts";
import type { AnalyticsExportInput } from "./schemas.ts";
import { exportQuery, type AnalyticsWorkspace } from "./service.ts";
import { clickStore, type ClickStore } from "./store.ts";

// The raw click events of a query as CSV, one row per event, streamed a page at a time (a database
// cursor behind, pull-based, so memory stays bounded however many rows there are). The visitor key
// is never exported. Cells go through toCsv, which neutralises spreadsheet formulas.

/** The file's columns in order: the header, and the cell of an event (`code`: its link's code, "" once deleted). */
const CSV_COLUMNS: readonly (readonly [header: string, cell: (r: ExportRow, code: string) => unknown])[] = [
  ["time", (r) => r.at.toISOString()],
  ["link", (_, code) => code],
  ["domain", (r) => r.domain],
  ["target", (r) => r.target],
  ["country", (r) => r.country],
  ["city", (r) => r.city],
  ["referrer_host", (r) => r.referrer_host],
  ["referrer_url", (r) => r.referrer_url],
  ["device", (r) => r.device],
  ["browser", (r) => r.browser],
  ["os", (r) => r.os],
  ["bot", (r) => r.bot],
  ["qr", (r) => r.qr],
];

export const EXPORT_HEADER = CSV_COLUMNS.map(([header]) => header);

export type CsvExport = { stream: ReadableStream<Uint8Array>; fileName: string };

export async function exportClicks(
  workspace: AnalyticsWorkspace,
  input: AnalyticsExportInput,
  now = Date.now(),
  store: ClickStore = clickStore(),
): Promise<CsvExport> {
  const query = await exportQuery(workspace, input, now);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { stream: csvStream(workspace, query, store), fileName: `clicks-${workspace.slug}-${day(query.start)}-${day(query.end)}.csv` };
}

function csvStream(workspace: AnalyticsWorkspace, query: ClickQuery, store: ClickStore): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pages = store.events(query);
  const codes = new Map<number, string | null>();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(toCsv([EXPORT_HEADER])));
          return;
        }
        const next = await pages.next();
        if (next.done) return controller.close();
        await learnCodes(workspace, next.value, codes);
        controller.enqueue(encoder.encode(toCsv(next.value.map((r) => csvRow(r, codes)))));
      } catch (e) {
        console.error(`[analytics] export failed: ${(e as Error).message}`);
        controller.error(e);
      }
    },
    async cancel() {
      await pages.return(undefined);
    },
  });
}

function csvRow(r: ExportRow, codes: Map<number, string | null>): unknown[] {
  const code = codes.get(r.link_id) ?? "";
  return CSV_COLUMNS.map(([, cell]) => cell(r, code));
}

/** Link codes by id for the page's rows (a deleted link exports an empty code). */
async function learnCodes(workspace: AnalyticsWorkspace, rows: ExportRow[], codes: Map<number, string | null>) {
  const missing = [...new Set(rows.map((r) => r.link_id).filter((id) => !codes.has(id)))];
  if (!missing.length) return;
  const links = await db().link.findMany({
    where: { id: { in: missing }, workspaceId: workspace.id },
    select: { id: true, code: true, domainId: true },
  });
  for (const id of missing) codes.set(id, null);
  for (const l of links) codes.set(l.id, l.code);
}
