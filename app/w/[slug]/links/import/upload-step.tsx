"use client";
import { useState, type RefObject } from "react";
import { TEMPLATE_CSV } from "@/lib/links/csv-rows";
import { buttonClass, Card, FormError, secondaryButtonClass } from "@/components/ui";
import { download, MAX_ROWS } from "./import-rows";

/** Choosing (or dropping) the file, and what its columns may be. */
export function UploadStep({
  allowed,
  input,
  fileError,
  readFile,
}: {
  allowed: boolean;
  input: RefObject<HTMLInputElement | null>;
  fileError: string | null;
  readFile: (file: File) => Promise<void>;
}) {
  const [dragging, setDragging] = useState(false);
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
