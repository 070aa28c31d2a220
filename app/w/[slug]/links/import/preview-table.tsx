"use client";
import { useState } from "react";
import { Badge, secondaryButtonClass } from "@/components/ui";
import { recordAlias, recordUrl, type Parsed } from "./import-rows";

// Every row of the file before importing, a page at a time (the file holds at most MAX_ROWS rows),
// with a switch to the rows with problems alone.

export const PREVIEW_PAGE = 50;

export function PreviewTable({ parsed }: { parsed: Parsed }) {
  const problems = parsed.rows.filter((r) => "errors" in r);
  const [onlyProblems, setOnlyProblems] = useState(false);
  const [page, setPage] = useState(0);
  const shown = onlyProblems ? problems : parsed.rows;
  const pages = Math.max(1, Math.ceil(shown.length / PREVIEW_PAGE));
  const current = Math.min(page, pages - 1);
  const slice = shown.slice(current * PREVIEW_PAGE, (current + 1) * PREVIEW_PAGE);
  const first = current * PREVIEW_PAGE + 1;
  return (
    <>
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <div role="group" aria-label="Rows to show" className="flex gap-2">
          <button
            type="button"
            aria-pressed={!onlyProblems}
            className={`${secondaryButtonClass} aria-pressed:border-brand-500 aria-pressed:bg-brand-50`}
            onClick={() => (setOnlyProblems(false), setPage(0))}
          >
            All rows ({parsed.rows.length.toLocaleString("en")})
          </button>
          <button
            type="button"
            aria-pressed={onlyProblems}
            disabled={problems.length === 0}
            className={`${secondaryButtonClass} aria-pressed:border-brand-500 aria-pressed:bg-brand-50`}
            onClick={() => (setOnlyProblems(true), setPage(0))}
          >
            Rows with problems ({problems.length.toLocaleString("en")})
          </button>
        </div>
        <p className="text-xs text-slate-600" data-testid="import-preview-range">
          {shown.length === 0
            ? "No rows"
            : `Rows ${first.toLocaleString("en")}–${(first + slice.length - 1).toLocaleString("en")} of ${shown.length.toLocaleString("en")}`}
        </p>
      </div>
      <div className="-mx-5 max-h-[32rem] overflow-auto" tabIndex={0} aria-label="Rows of the file">
        <table className="w-full min-w-[640px] text-left text-sm" data-testid="import-preview">
          <thead className="sticky top-0 bg-white text-xs uppercase tracking-wide text-slate-500">
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
            {slice.map((r) => {
              const rec = "body" in r ? r.body : {};
              return (
                <tr key={r.row} className={"errors" in r ? "bg-red-50/60" : undefined}>
                  <td className="px-5 py-2 text-slate-600">{r.row}</td>
                  <td className="max-w-xs truncate px-3 py-2">{String(rec.url ?? recordUrl(parsed.records[r.row - 1]))}</td>
                  <td className="px-3 py-2">{String(rec.alias ?? recordAlias(parsed.records[r.row - 1]))}</td>
                  <td className="max-w-[10rem] truncate px-3 py-2">{String(rec.title ?? "")}</td>
                  <td className="px-3 py-2">{String(rec.folder ?? "")}</td>
                  <td className="px-3 py-2">{Array.isArray(rec.tags) ? rec.tags.join(", ") : ""}</td>
                  <td className="px-3 py-2">
                    {"errors" in r ? <span className="text-xs text-red-700">{r.errors.join(" ")}</span> : <Badge tone="green">Ready</Badge>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {pages > 1 && (
        <nav aria-label="Pages of the preview" className="mt-3 flex items-center justify-between text-sm">
          <button type="button" className={secondaryButtonClass} disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </button>
          <span className="text-slate-600">
            Page {current + 1} of {pages}
          </span>
          <button type="button" className={secondaryButtonClass} disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
