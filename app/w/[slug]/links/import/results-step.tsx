"use client";
import Link from "next/link";
import { toCsv } from "@/lib/csv";
import { ProgressBar } from "@/components/progress";
import { buttonClass, Card, FormError, secondaryButtonClass } from "@/components/ui";
import { download, type Outcome, type Parsed } from "./import-rows";
import { ResultsTable } from "./results-table";

/** After the import: the summary, the results as CSV, and each row's outcome. */
export function ResultsStep({
  slug,
  parsed,
  outcomes,
  progress,
  fatal,
  onlyFailures,
  setOnlyFailures,
  reset,
}: {
  slug: string;
  parsed: Parsed;
  outcomes: Outcome[];
  progress: { done: number; total: number } | null;
  fatal: string | null;
  onlyFailures: boolean;
  setOnlyFailures: (v: boolean) => void;
  reset: () => void;
}) {
  const created = outcomes.filter((o) => o.status === 201).length;
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
                    ...outcomes.map((o) => [o.row, o.url, o.alias, o.status === 201 ? "created" : "failed", o.short ?? "", o.reason ?? ""]),
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
