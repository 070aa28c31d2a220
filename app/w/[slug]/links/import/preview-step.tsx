"use client";
import { buttonClass, Card, secondaryButtonClass } from "@/components/ui";
import type { Parsed } from "./import-rows";
import { MappingCard } from "./mapping-card";
import { PreviewTable } from "./preview-table";

/** The file read and checked: the counts, the column mapping of a foreign export, every row (problems first). */
export function PreviewStep({
  parsed,
  allowed,
  reset,
  runImport,
}: {
  parsed: Parsed;
  allowed: boolean;
  reset: () => void;
  runImport: () => void;
}) {
  const invalid = parsed.rows.filter((r) => "errors" in r).length;
  const valid = parsed.rows.length - invalid;
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
      <Card title="Preview">
        <PreviewTable parsed={parsed} />
        <p className="mt-3 text-xs text-slate-500">
          Rules that need the server (aliases already taken, plan features, your monthly allowance) are checked during the import.
        </p>
      </Card>
    </div>
  );
}
