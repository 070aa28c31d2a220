"use client";
import { inputClass, secondaryButtonClass } from "@/components/ui";
import { pageNumbers } from "./list-view";

// The links list's footer: "1–25 of 312" (the count stops at the service's cap: "of 10,000+"),
// the page size, previous / next and the page numbers around the current one.

export const PAGE_SIZES = [25, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

export function ListPager({
  page,
  size,
  total,
  capped,
  shown,
  onPage,
  onSize,
}: {
  page: number;
  size: PageSize;
  total: number;
  capped: boolean;
  shown: number;
  onPage: (page: number) => void;
  onSize: (size: PageSize) => void;
}) {
  const last = Math.max(1, Math.ceil(total / size));
  const from = total === 0 ? 0 : (page - 1) * size + 1;
  const to = (page - 1) * size + shown;
  const button = `${secondaryButtonClass} px-2.5 py-1`;
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-600">
      <p aria-live="polite" data-testid="list-range">
        {from.toLocaleString("en")}–{to.toLocaleString("en")} of {total.toLocaleString("en")}
        {capped ? "+" : ""}
      </p>
      <nav aria-label="Pages" className="flex flex-wrap items-center gap-1">
        <button type="button" className={button} disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </button>
        {pageNumbers(page, last).map((p, i) =>
          p === null ? (
            <span key={`gap-${i}`} aria-hidden className="px-1">
              …
            </span>
          ) : (
            <button
              key={p}
              type="button"
              aria-label={`Page ${p}`}
              aria-current={p === page ? "page" : undefined}
              className={`${button} ${p === page ? "border-brand-600 bg-brand-50 text-brand-700" : ""}`}
              onClick={() => onPage(p)}
            >
              {p}
            </button>
          ),
        )}
        <button type="button" className={button} disabled={page >= last} onClick={() => onPage(page + 1)}>
          Next
        </button>
      </nav>
      <label className="flex items-center gap-2">
        Per page
        <select value={size} onChange={(e) => onSize(Number(e.target.value) as PageSize)} className={`${inputClass} w-20 py-1`}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
