"use client";
import { Badge, buttonClass, Card, secondaryButtonClass } from "@/components/ui";
import { recordAlias, recordUrl, type Parsed } from "./import-rows";
import { MappingCard } from "./mapping-card";

/** The file read and checked: the counts, the column mapping of a foreign export, the first rows. */
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
