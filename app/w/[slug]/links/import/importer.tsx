"use client";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { readImportRecords } from "@/lib/csv/import-file";
import { columnFor, toLinkBody, type ConvertedRow } from "@/lib/links/csv-rows";
import { ProgressBar } from "@/components/progress";
import { useToast } from "@/components/toast";
import { Card } from "@/components/ui";
import { importChunkAction, type ImportRowResult } from "../actions";
import { checkRow, CHUNK, importToast, MAX_ROWS, reasonOf, recordAlias, recordUrl, type Outcome, type Parsed } from "./import-rows";
import { PreviewStep } from "./preview-step";
import { ResultsStep } from "./results-step";
import { UploadStep } from "./upload-step";

// CSV import: read and check the file in the browser, preview, then send it in chunks of 100 rows
// to the bulk service (the one behind POST /api/v1/links/bulk) so the bar shows real progress.
// Chunk i of n is batch { index: i, count: n } of its link.bulk_created event. One file per step:
// upload-step, preview-step, results-step; the running import's bar is here.

export function Importer({ slug, allowed }: { slug: string; allowed: boolean }) {
  const [parsed, setParsed] = useState<Parsed | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);
  const [onlyFailures, setOnlyFailures] = useState(false);
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
    const { text, kind } = importToast(results);
    toast(text, kind);
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

  if (outcomes && parsed) {
    return (
      <ResultsStep
        slug={slug}
        parsed={parsed}
        outcomes={outcomes}
        progress={progress}
        fatal={fatal}
        onlyFailures={onlyFailures}
        setOnlyFailures={setOnlyFailures}
        reset={reset}
      />
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

  if (parsed) return <PreviewStep parsed={parsed} allowed={allowed} reset={reset} runImport={runImport} />;

  return <UploadStep allowed={allowed} input={input} fileError={fileError} readFile={readFile} />;
}
