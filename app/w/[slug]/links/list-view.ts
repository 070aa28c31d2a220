import type { LinksPageView } from "@/lib/links/views";

// The sort menu of the links list: one choice per sort and direction (lib/links/list-page.ts).
export type ListView = LinksPageView;

export const SORT_CHOICES = [
  { id: "created-desc", sort: "created", order: "desc", label: "Newest first" },
  { id: "created-asc", sort: "created", order: "asc", label: "Oldest first" },
  { id: "clicks-desc", sort: "clicks", order: "desc", label: "Most clicks" },
  { id: "clicks-asc", sort: "clicks", order: "asc", label: "Fewest clicks" },
  { id: "lastClick-desc", sort: "lastClick", order: "desc", label: "Clicked most recently" },
  { id: "lastClick-asc", sort: "lastClick", order: "asc", label: "Clicked longest ago" },
] as const satisfies readonly { id: string; sort: ListView["sort"]; order: ListView["order"]; label: string }[];

export const sortChoiceOf = (view: Pick<ListView, "sort" | "order">) =>
  SORT_CHOICES.find((c) => c.sort === view.sort && c.order === view.order) ?? SORT_CHOICES[0];

/**
 * Page numbers to show: the first, the last and two either side of the current; null is a gap of
 * two pages or more (a gap of one shows that page instead).
 */
export function pageNumbers(page: number, last: number): (number | null)[] {
  const near = (p: number) => p === 1 || p === last || Math.abs(p - page) <= 2;
  const out: (number | null)[] = [];
  for (let p = 1; p <= last; p++) {
    if (near(p) || (near(p - 1) && near(p + 1))) out.push(p);
    else if (out[out.length - 1] !== null) out.push(null);
  }
  return out;
}
