"use client";
import { useSearchParams } from "next/navigation";
import { useEffect } from "react";

// The row of the link just made in the quick-create dialog (?created=<id>), marked in the links
// list: a highlight, data-highlight and aria-current. The list is its own component (links-table.tsx),
// rendered and re-rendered on its own schedule, so the row is found in the document as it appears:
// by its data-link-id, else by its short link's anchor (data-short-link, href .../links/<id>).

const HIGHLIGHT = ["bg-brand-50", "ring-2", "ring-inset", "ring-brand-500"];

function rowOf(slug: string, id: string): HTMLElement | null {
  const marked = document.querySelector<HTMLElement>(`[data-link-id="${id}"]`);
  if (marked) return marked;
  const anchor = document.querySelector(`a[data-short-link][href="/w/${slug}/links/${id}"]`);
  return anchor?.closest<HTMLElement>('li, tr, [role="row"]') ?? null;
}

export function CreatedRowHighlight({ slug }: { slug: string }) {
  const created = useSearchParams().get("created");
  useEffect(() => {
    if (!created || !/^\d{1,10}$/.test(created)) return;
    let marked: HTMLElement | null = null;
    const mark = () => {
      const row = rowOf(slug, created);
      if (!row || row.dataset.highlight === "true") return;
      marked = row;
      row.dataset.highlight = "true";
      row.setAttribute("aria-current", "true");
      row.classList.add(...HIGHLIGHT);
      row.scrollIntoView({ block: "nearest" });
    };
    mark();
    const observer = new MutationObserver(mark);
    observer.observe(document.body, { childList: true, subtree: true });
    return () => {
      observer.disconnect();
      const row = marked as HTMLElement | null;
      if (row) {
        delete row.dataset.highlight;
        row.removeAttribute("aria-current");
        row.classList.remove(...HIGHLIGHT);
      }
    };
  }, [slug, created]);
  return null;
}
