"use client";
import Link from "next/link";
import { useState } from "react";
import { Badge, secondaryButtonClass } from "@/components/ui";
import type { Outcome } from "./import-rows";

/** Each row's result, 100 at first and 200 more on request. */
export function ResultsTable({ outcomes, slug }: { outcomes: Outcome[]; slug: string }) {
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
