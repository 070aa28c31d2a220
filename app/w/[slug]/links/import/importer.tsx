"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { describeErrorBody, type ErrorBody } from "@/lib/api/error-body";
import { toCsv } from "@/lib/csv";
import type { Detection } from "@/lib/csv/foreign";
import { readImportRecords } from "@/lib/csv/import-file";
import { columnFor, TEMPLATE_CSV, toLinkBody, type ConvertedRow } from "@/lib/csv/link-rows";
import { createLinkSchema } from "@/lib/links/schemas";
import { ProgressBar } from "@/components/progress";
import { useToast } from "@/components/toast";
import { Badge, buttonClass, Card, FormError, secondaryButtonClass } from "@/components/ui";
import { importChunkAction, type ImportRowResult } from "../actions";

// CSV import: read and check the file in the browser, preview, then send it in chunks of 100 rows
// to the bulk service (the one behind POST /api/v1/links/bulk) so the bar shows real progress.
// Chunk i of n is batch { index: i, count: n } of its link.bulk_created event.

const CHUNK = 100;
const MAX_ROWS = 10_000;

type Parsed = {
  fileName: string;
  header: string[];
  ignored: string[];
  rows: ConvertedRow[];
  records: Record<string, string>[];
  detection: Detection | null;
};
type Outcome = { row: number; url: string; alias: string; status: number; short?: string; id?: number; reason?: string };

/** The API's own body schema, in the browser: a row it refuses is reported without being sent. */
function checkRow(r: ConvertedRow): ConvertedRow {
  if (!("body" in r)) return r;
  const parsed = createLinkSchema.safeParse(r.body);
  if (parsed.success) return r;
  return {
    row: r.row,
    errors: parsed.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message)),
  };
}

function reasonOf(body: ErrorBody): string {
  return describeErrorBody(body);
}

const cell = (record: Record<string, string>, col: string) =>
  Object.entries(record)
    .find(([h]) => columnFor(h) === col)?.[1]
    ?.trim() ?? "";
const recordUrl = (record: Record<string, string>) => cell(record, "url");
const recordAlias = (record: Record<string, string>) => cell(record, "alias");

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function Importer({ slug, allowed }: { slug: string; allowed: boolean }) {
  const [parsed, setParsed] = useState<Parsed | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);
  const [onlyFailures, setOnlyFailures] = useState(false);
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const router = useRouter();
  const toast = useToast();
  const running = progress !== null && outcomes === null;

  async function readFile(file: File) {
    setFileError(null);
    setOutcomes(null);
    setProgress(null);
    setFatal(null);
    if (file.size > 20 * 1024 * 1024) return setFileError("The file is larger than 20 MB.");
    // Another service's export (Bitly, Rebrandly, Short.io, Dub) comes back converted to Linkhop's columns.
    const { header, records, error, detection } = readImportRecords(await file.text());
    if (error) return setFileError(`${file.name} is not a valid CSV file. ${error}`);
    if (!detection && !header.some((h) => columnFor(h) === "url"))
      return setFileError(`${file.name} has no url column. The first line must name the columns, for example: url,alias,title,folder`);
    if (records.length === 0) return setFileError(`${file.name} has a header line but no rows.`);
    if (records.length > MAX_ROWS) return setFileError(`${file.name} has ${records.length} rows; import at most ${MAX_ROWS} at a time.`);
    setParsed({
      fileName: file.name,
      header,
      ignored: detection ? [] : header.filter((h) => h && !columnFor(h)),
      detection,
      rows: records.map((r, i) => checkRow(toLinkBody(r, i + 1))),
      records,
    });
  }

  async function runImport() {
    if (!parsed) return;
    const ready = parsed.rows.filter((r): r is Extract<ConvertedRow, { body: unknown }> => "body" in r);
    const results: Outcome[] = parsed.rows
      .filter((r): r is Extract<ConvertedRow, { errors: string[] }> => "errors" in r)
      .map((r) => ({
        row: r.row,
        url: recordUrl(parsed.records[r.row - 1]),
        alias: recordAlias(parsed.records[r.row - 1]),
        status: 400,
        reason: r.errors.join(" "),
      }));
    const chunks: (typeof ready)[] = [];
    for (let i = 0; i < ready.length; i += CHUNK) chunks.push(ready.slice(i, i + CHUNK));
    // Rows refused in the browser count as done at once; the bar covers every row of the file.
    let done = results.length;
    setProgress({ done, total: parsed.rows.length });
    setFatal(null);
    for (let i = 0; i < chunks.length; i++) {
      let r;
      try {
        r = await importChunkAction(slug, { rows: chunks[i], batch: { index: i + 1, count: chunks.length } });
      } catch {
        r = { ok: false as const, error: "The server could not be reached." };
      }
      if (!r.ok) {
        // The whole chunk was refused (plan, connection): report it and stop.
        for (const row of chunks.slice(i).flat())
          results.push({ row: row.row, url: String(row.body.url ?? ""), alias: String(row.body.alias ?? ""), status: 0, reason: r.error });
        setFatal(`Stopped at row ${chunks[i][0].row}: ${r.error}`);
        break;
      }
      r.data.forEach((res: ImportRowResult, k: number) => {
        const body = chunks[i][k].body;
        results.push({
          row: res.row,
          url: String(body.url ?? ""),
          alias: String(body.alias ?? ""),
          status: res.status,
          short: res.short,
          id: res.id,
          reason: res.error ? reasonOf(res.error) : undefined,
        });
      });
      done += chunks[i].length;
      setProgress({ done, total: parsed.rows.length });
    }
    results.sort((a, b) => a.row - b.row);
    setOutcomes(results);
    const created = results.filter((o) => o.status === 201).length;
    toast(`Import finished: ${created} created, ${results.length - created} failed`, created === results.length ? "success" : "error");
    router.refresh();
  }

  function reset() {
    setParsed(null);
    setProgress(null);
    setOutcomes(null);
    setFatal(null);
    setFileError(null);
    if (input.current) input.current.value = "";
  }

  const invalid = parsed?.rows.filter((r) => "errors" in r).length ?? 0;
  const valid = (parsed?.rows.length ?? 0) - invalid;
  const created = outcomes?.filter((o) => o.status === 201).length ?? 0;

  if (outcomes && parsed) {
    const shown = onlyFailures ? outcomes.filter((o) => o.status !== 201) : outcomes;
    return (
      <div className="space-y-4">
        <Card>
          <div className="flex flex-wrap items-center justify-between gap-4">
            <div>
              <h2 className="text-lg font-semibold">Import finished</h2>
              <p className="text-sm text-slate-600" data-testid="import-summary">
                {created} created, {outcomes.length - created} failed, of {outcomes.length} rows in {parsed.fileName}.
              </p>
            </div>
            <div className="flex flex-wrap gap-2">
              <button
                type="button"
                className={secondaryButtonClass}
                onClick={() =>
                  download(
                    `${parsed.fileName.replace(/\.csv$/i, "")}-results.csv`,
                    toCsv([
                      ["row", "url", "alias", "status", "short", "error"],
                      ...outcomes.map((o) => [
                        o.row,
                        o.url,
                        o.alias,
                        o.status === 201 ? "created" : "failed",
                        o.short ?? "",
                        o.reason ?? "",
                      ]),
                    ]),
                  )
                }
              >
                Download results (CSV)
              </button>
              <button type="button" className={secondaryButtonClass} onClick={reset}>
                Import another file
              </button>
              <Link href={`/w/${slug}/links`} className={buttonClass}>
                View links
              </Link>
            </div>
          </div>
          <div className="mt-4">
            <ProgressBar value={progress?.done ?? 0} max={progress?.total || 1} label="Import progress" />
          </div>
          {fatal && (
            <div className="mt-3">
              <FormError message={fatal} />
            </div>
          )}
        </Card>
        <Card
          title="Results"
          actions={
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={onlyFailures} onChange={(e) => setOnlyFailures(e.target.checked)} className="h-4 w-4" />
              Only failures
            </label>
          }
        >
          <ResultsTable outcomes={shown} slug={slug} />
        </Card>
      </div>
    );
  }

  if (running && progress) {
    return (
      <Card>
        <h2 className="text-lg font-semibold">Importing {parsed?.fileName}…</h2>
        <p className="mt-1 text-sm text-slate-600" aria-live="polite">
          {progress.done} of {progress.total} rows sent
        </p>
        <div className="mt-4">
          <ProgressBar value={progress.done} max={progress.total || 1} label="Import progress" />
        </div>
        <p className="mt-3 text-xs text-slate-500">Keep this page open until the import finishes.</p>
      </Card>
    );
  }

  if (parsed) {
    return (
      <div className="space-y-4">
        <Card>
          <div className="flex flex-wrap items-center justify-between gap-4">
            <div>
              <h2 className="text-lg font-semibold">{parsed.fileName}</h2>
              <p className="text-sm text-slate-600" data-testid="import-preview-summary">
                {parsed.rows.length} row{parsed.rows.length === 1 ? "" : "s"}: {valid} ready to import
                {invalid > 0 && `, ${invalid} with problems (reported in the results, not imported)`}.
              </p>
              {parsed.ignored.length > 0 && <p className="mt-1 text-xs text-amber-700">Ignored columns: {parsed.ignored.join(", ")}</p>}
            </div>
            <div className="flex gap-2">
              <button type="button" className={secondaryButtonClass} onClick={reset}>
                Choose another file
              </button>
              <button type="button" className={buttonClass} disabled={!allowed || valid === 0} onClick={runImport}>
                Import {valid} link{valid === 1 ? "" : "s"}
              </button>
            </div>
          </div>
        </Card>
        {parsed.detection && <MappingCard detection={parsed.detection} />}
        <Card title={`Preview${parsed.rows.length > 10 ? " (first 10 rows)" : ""}`}>
          <div className="-mx-5 overflow-x-auto">
            <table className="w-full min-w-[640px] text-left text-sm">
              <thead className="text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th className="px-5 py-2 font-medium">Row</th>
                  <th className="px-3 py-2 font-medium">URL</th>
                  <th className="px-3 py-2 font-medium">Alias</th>
                  <th className="px-3 py-2 font-medium">Title</th>
                  <th className="px-3 py-2 font-medium">Folder</th>
                  <th className="px-3 py-2 font-medium">Tags</th>
                  <th className="px-3 py-2 font-medium">Check</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {parsed.rows.slice(0, 10).map((r) => {
                  const rec = "body" in r ? r.body : {};
                  return (
                    <tr key={r.row}>
                      <td className="px-5 py-2 text-slate-500">{r.row}</td>
                      <td className="max-w-xs truncate px-3 py-2">{String(rec.url ?? recordUrl(parsed.records[r.row - 1]))}</td>
                      <td className="px-3 py-2">{String(rec.alias ?? recordAlias(parsed.records[r.row - 1]))}</td>
                      <td className="max-w-[10rem] truncate px-3 py-2">{String(rec.title ?? "")}</td>
                      <td className="px-3 py-2">{String(rec.folder ?? "")}</td>
                      <td className="px-3 py-2">{Array.isArray(rec.tags) ? rec.tags.join(", ") : ""}</td>
                      <td className="px-3 py-2">
                        {"errors" in r ? (
                          <span className="text-xs text-red-700">{r.errors.join(" ")}</span>
                        ) : (
                          <Badge tone="green">Ready</Badge>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p className="mt-3 text-xs text-slate-500">
            Rules that need the server (aliases already taken, plan features, your monthly allowance) are checked during the import.
          </p>
        </Card>
      </div>
    );
  }

  return (
    <div className="space-y-4">
      <div
        onDragOver={(e) => {
          e.preventDefault();
          if (allowed) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          const f = e.dataTransfer.files[0];
          if (f && allowed) void readFile(f);
        }}
        className={`rounded-lg border-2 border-dashed px-6 py-12 text-center ${dragging ? "border-brand-500 bg-brand-50" : "border-slate-300 bg-white"}`}
      >
        <svg
          aria-hidden
          className="mx-auto h-10 w-10 text-slate-400"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
        >
          <path d="M12 16V4m0 0l-4 4m4-4l4 4M4 16v3a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-3" />
        </svg>
        <p className="mt-3 font-medium">Drop a CSV file here, or</p>
        <label className={`${buttonClass} mt-3 cursor-pointer ${allowed ? "" : "pointer-events-none opacity-50"}`}>
          Choose a CSV file
          <input
            ref={input}
            type="file"
            accept=".csv,text/csv"
            disabled={!allowed}
            className="sr-only"
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void readFile(f);
            }}
          />
        </label>
        <p className="mt-3 text-xs text-slate-500">UTF-8, first line names the columns. Up to {MAX_ROWS.toLocaleString("en")} rows.</p>
      </div>
      <FormError message={fileError} />
      <Card title="Columns">
        <p className="text-sm text-slate-600">
          Only <code className="font-mono">url</code> is required. Optional:{" "}
          <code className="font-mono">
            alias, domain, title, notes, folder, active, startsOn, expiresOn, maxClicks, fallbackUrl, password, ios, android, geo
          </code>
          . Times are ISO 8601 (a time without a zone is UTC) or unix seconds; <code className="font-mono">active</code> is true or false;{" "}
          <code className="font-mono">geo</code> is space-separated <code className="font-mono">COUNTRY=URL</code> pairs.
        </p>
        <button
          type="button"
          className={`${secondaryButtonClass} mt-3`}
          onClick={() => download("linkhop-import-template.csv", TEMPLATE_CSV)}
        >
          Download a template
        </button>
      </Card>
    </div>
  );
}

function ResultsTable({ outcomes, slug }: { outcomes: Outcome[]; slug: string }) {
  const [limit, setLimit] = useState(100);
  if (outcomes.length === 0) return <p className="text-sm text-slate-500">Nothing to show.</p>;
  return (
    <>
      <div className="-mx-5 overflow-x-auto">
        <table className="w-full min-w-[640px] text-left text-sm" aria-label="Import results">
          <thead className="text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-5 py-2 font-medium">Row</th>
              <th className="px-3 py-2 font-medium">URL</th>
              <th className="px-3 py-2 font-medium">Result</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {outcomes.slice(0, limit).map((o) => (
              <tr key={o.row}>
                <td className="px-5 py-2 text-slate-500">{o.row}</td>
                <td className="max-w-xs truncate px-3 py-2" title={o.url}>
                  {o.url}
                </td>
                <td className="px-3 py-2">
                  {o.status === 201 ? (
                    <span className="flex items-center gap-2">
                      <Badge tone="green">Created</Badge>
                      <Link href={`/w/${slug}/links/${o.id}`} className="font-mono text-xs text-brand-700 hover:underline">
                        {o.short?.replace(/^https?:\/\//, "")}
                      </Link>
                    </span>
                  ) : (
                    <span className="flex items-start gap-2">
                      <Badge tone="red">Failed</Badge>
                      <span className="text-xs text-red-700">{o.reason}</span>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {outcomes.length > limit && (
        <button type="button" className={`${secondaryButtonClass} mt-3`} onClick={() => setLimit((l) => l + 200)}>
          Show more ({outcomes.length - limit} left)
        </button>
      )}
    </>
  );
}

const TARGET_LABEL: Record<string, string> = {
  url: "url",
  alias: "alias",
  title: "title",
  tags: "tags",
  notes: "notes",
  active: "active",
  createdNote: "notes",
};

/** How another service's export maps to Linkhop's columns, shown before anything is created. */
function MappingCard({ detection }: { detection: Detection }) {
  return (
    <Card title="Column mapping">
      <p className="text-sm text-slate-700" data-testid="import-format">
        {detection.label} export detected
      </p>
      <div className="-mx-5 mt-3 overflow-x-auto">
        <table aria-label="Column mapping" className="w-full text-left text-sm">
          <thead className="text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-5 py-2 font-medium">{detection.label} column</th>
              <th className="px-3 py-2 font-medium">Linkhop field</th>
              <th className="px-3 py-2 font-medium">How</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {detection.columns.map((c) => (
              <tr key={c.header}>
                <td className="px-5 py-2 font-mono text-xs">{c.header}</td>
                <td className="px-3 py-2">{c.target ? TARGET_LABEL[c.target] : <span className="text-slate-400">not imported</span>}</td>
                <td className="px-3 py-2 text-slate-600">{c.target ? c.how : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
