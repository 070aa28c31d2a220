import { realTimeNow } from "../../clock.ts";
import { config } from "../../config/index.ts";
import { toCsv } from "../../csv/index.ts";
import { db } from "../../db/client.ts";
import { ServiceError } from "../../errors.ts";
import type { ClickQuery, ClickStore, ExportRow } from "../model.ts";
import { shared } from "../../registry.ts";
import { reportStore } from "../store/instance.ts";
import type { AnalyticsExportInput } from "./schemas.ts";
import { exportQuery, type AnalyticsWorkspace } from "./service.ts";
import { log } from "../../log/index.ts";

// The raw click events of a query as CSV, one row per event, streamed a page at a time (a database
// cursor behind, pull-based, so memory stays bounded however many rows there are). The visitor key
// is never exported. Cells go through toCsv, which neutralises spreadsheet formulas.
//
// The cursor holds one of analytics' few connections (and an open transaction) for as long as the
// client takes to read, and a client that stops reading stops the pulls, not the hold. So an
// export is bounded twice: it is ended after `timeoutMs` however far it got (the download breaks
// off, the connection goes back to the pool), and at most `maxRunning` run at once per process,
// fewer than the pool has, so reports and click writes always find a connection.

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
  ["destination", (r) => r.destination],
  ["language", (r) => r.language],
];

export const EXPORT_HEADER = CSV_COLUMNS.map(([header]) => header);

export type CsvExport = { stream: ReadableStream<Uint8Array>; fileName: string };

/** How long one export may stream, and how many may run at once in this process. */
export type ExportBounds = { timeoutMs: number; maxRunning: number };

/** ANALYTICS_EXPORT_TIMEOUT and ANALYTICS_EXPORTS_MAX (default: half the analytics pool, at least 1). */
export function exportBounds(): ExportBounds {
  const c = config();
  return {
    timeoutMs: c.ANALYTICS_EXPORT_TIMEOUT,
    maxRunning: c.ANALYTICS_EXPORTS_MAX ?? Math.max(1, Math.floor(c.ANALYTICS_POOL_SIZE / 2)),
  };
}

// one count for the process (lib/registry.ts: the custom server's module graph and Next's share it)
const running = () => shared("exports-running", () => ({ count: 0 }));

/** Counts one more running export, or refuses with 429 rate_limit when `max` run already; returns its release (once). */
function takeExportSlot(max: number): () => void {
  const exports = running();
  if (exports.count >= max)
    throw new ServiceError("rate_limit", `${max} exports are already running; try again when one has finished.`, { extra: { limit: max } });
  exports.count++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    exports.count--;
  };
}

/** How many exports this process is streaming now. */
export function runningExports(): number {
  return running().count;
}

export async function exportClicks(
  workspace: AnalyticsWorkspace,
  input: AnalyticsExportInput,
  now = realTimeNow(),
  store: ClickStore = reportStore(),
  bounds: ExportBounds = exportBounds(),
): Promise<CsvExport> {
  const query = await exportQuery(workspace, input, now);
  const release = takeExportSlot(bounds.maxRunning);
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    stream: csvStream(workspace, query, store, bounds.timeoutMs, release),
    fileName: `clicks-${workspace.slug}-${day(query.start)}-${day(query.end)}.csv`,
  };
}

function csvStream(
  workspace: AnalyticsWorkspace,
  query: ClickQuery,
  store: ClickStore,
  timeoutMs: number,
  release: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const pages = store.events(query);
  const codes = new Map<number, string | null>();
  let headerSent = false;
  let ended = false;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  // once, however the stream ends (done, failed, cancelled by the client, the deadline): the slot
  // back and the cursor closed, which releases its connection (after a page being read, if any)
  const end = async () => {
    if (ended) return;
    ended = true;
    clearTimeout(deadline);
    release();
    await pages.return(undefined);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // from the start, not the first pull: a response nobody reads is never pulled
      deadline = setTimeout(() => {
        if (ended) return;
        log("analytics").warn(
          { workspaceId: workspace.id, timeoutMs },
          `export of workspace ${workspace.id} ended after ${timeoutMs} ms (ANALYTICS_EXPORT_TIMEOUT)`,
        );
        // an error, not a close: the client sees a broken download, never a short file that looks whole
        controller.error(new Error(`the export took longer than ${timeoutMs} ms`));
        end().catch((e) => log("analytics").error({ err: e }, "export cleanup failed"));
      }, timeoutMs);
      deadline.unref?.();
    },
    async pull(controller) {
      if (ended) return;
      try {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(toCsv([EXPORT_HEADER])));
          return;
        }
        const next = await pages.next();
        if (ended) return; // the deadline passed meanwhile
        if (next.done) {
          await end();
          return controller.close();
        }
        await learnCodes(workspace, next.value, codes);
        if (ended) return;
        controller.enqueue(encoder.encode(toCsv(next.value.map((r) => csvRow(r, codes)))));
      } catch (e) {
        if (ended) return;
        log("analytics").error({ workspaceId: workspace.id, err: e }, "export failed");
        controller.error(e);
        await end().catch(() => {});
      }
    },
    async cancel() {
      await end();
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
