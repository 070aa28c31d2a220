"use client";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { ConfirmAction } from "@/components/confirm-action";
import { Spinner } from "@/components/progress";
import { useMediaQuery, WIDE_SCREEN } from "@/components/media-query";
import { useShortcuts } from "@/components/shortcuts";
import { TagChip } from "@/components/tag-chip";
import { useToast } from "@/components/toast";
import { inputClass, secondaryButtonClass } from "@/components/ui";
import { deleteLinkAction, linkTrendsAction, listLinksPageAction, type LinksListPage, type ListedLink } from "./actions";
import { BulkActions } from "./bulk-actions";
import { BulkTagBar } from "./bulk-tag-bar";
import { LinkRow, ROW_COLUMNS } from "./link-row";
import { ListPager, type PageSize } from "./list-pager";
import { ShortcutsDialog } from "./shortcuts-dialog";
import { SORT_CHOICES, sortChoiceOf, type ListView } from "./list-view";

// The links list: search, tag filter, sort (created, clicks, last click; both ways), numbered pages
// of 25/50/100 with the count, all kept in the address (?q=&sort=clicks&order=desc&page=2&size=50)
// so a reload or a shared URL shows the same list. Rows can be selected (checkbox or X) for the bulk
// bar: tags, move, activate/deactivate, expiry, delete. Keyboard: / search, J/K cursor, X select,
// Enter open, Esc clear, ? the list of shortcuts. "Export CSV" downloads the current filter.

export type TagOption = { name: string; color: string };

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function LinksTable({
  slug,
  folder,
  tag,
  tags,
  folders,
  initialQuery,
  initialView,
  initial,
}: {
  slug: string;
  folder: string;
  tag: string;
  tags: TagOption[];
  folders: string[];
  initialQuery: string;
  initialView: ListView;
  initial: LinksListPage;
}) {
  const [text, setText] = useState(initialQuery);
  const [view, setView] = useState<ListView>(initialView);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [cursor, setCursor] = useState(-1);
  const [deleting, setDeleting] = useState<ListedLink | null>(null);
  const [bulkDeleteOpen, setBulkDeleteOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const q = useDebounced(text.trim(), 250);
  const search = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const router = useRouter();
  const toast = useToast();
  const client = useQueryClient();
  const wide = useMediaQuery(WIDE_SCREEN);

  // a new search starts at page 1
  const [lastQ, setLastQ] = useState(q);
  if (q !== lastQ) {
    setLastQ(q);
    setView((v) => ({ ...v, page: 1 }));
  }

  useEffect(() => {
    // Keep the search, sort and page in the address so they survive reloads and can be shared.
    const url = new URL(window.location.href);
    const set = (name: string, value: string, fallback: string) =>
      value === fallback ? url.searchParams.delete(name) : url.searchParams.set(name, value);
    set("q", q, "");
    set("sort", view.sort, "created");
    set("order", view.order, "desc");
    set("page", String(view.page), "1");
    set("size", String(view.size), "25");
    window.history.replaceState(window.history.state, "", url);
  }, [q, view]);

  const isInitial =
    q === initialQuery &&
    view.sort === initialView.sort &&
    view.order === initialView.order &&
    view.page === initialView.page &&
    view.size === initialView.size;
  const query = useQuery({
    queryKey: ["links", slug, folder, tag, q, view.sort, view.order, view.page, view.size],
    queryFn: async () => {
      const r = await listLinksPageAction(slug, { q: q || undefined, folder: folder || undefined, tag: tag ? [tag] : undefined, ...view });
      if (!r.ok) throw new Error(r.error);
      return r.data;
    },
    initialData: isInitial ? initial : undefined,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });

  const links = query.data?.links ?? [];
  // the server may show the last page instead of one past it
  const page = query.data?.page ?? view.page;
  // The trends come after the list, in one request per set of links shown: the list never waits.
  const shownIds = links.map((l) => l.id);
  const trends = useQuery({
    queryKey: ["link-trends", slug, shownIds],
    queryFn: async () => {
      const r = await linkTrendsAction(slug, { ids: shownIds });
      return r.ok ? r.data : {};
    },
    enabled: shownIds.length > 0,
    staleTime: 60_000,
  });

  const refresh = () => {
    setSelected(new Set());
    client.invalidateQueries({ queryKey: ["links", slug] });
    router.refresh();
  };
  const toggle = (id: number) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const moveCursor = (by: number) => {
    if (links.length === 0) return;
    const next = Math.min(links.length - 1, Math.max(0, cursor + by));
    setCursor(next);
    listRef.current?.querySelectorAll("li")[next]?.scrollIntoView({ block: "nearest" });
  };
  const atCursor = cursor >= 0 ? links[cursor] : undefined;

  useShortcuts({
    "/": () => search.current?.focus(),
    j: () => moveCursor(1),
    k: () => moveCursor(-1),
    x: () => {
      if (!atCursor) return false;
      toggle(atCursor.id);
    },
    Enter: (e) => {
      // Enter on a focused control (a link, a button) keeps its own meaning
      if (!atCursor || (e.target as HTMLElement).closest("a, button, input, select")) return false;
      router.push(`/w/${slug}/links/${atCursor.id}`);
    },
    Escape: () => {
      if (selected.size === 0 && cursor < 0) return false;
      setSelected(new Set());
      setCursor(-1);
    },
    "?": () => setHelpOpen(true),
  });

  const colorOf = new Map(tags.map((t) => [t.name.toLowerCase(), t.color]));
  const filterHref = (next: { tag?: string }) => {
    const p = new URLSearchParams();
    if (q) p.set("q", q);
    if (folder) p.set("folder", folder);
    const t = next.tag ?? tag;
    if (t) p.set("tag", t);
    const s = p.toString();
    return s ? `?${s}` : "";
  };
  const exportHref = `/w/${slug}/links/export${filterHref({})}`;
  const allShown = links.length > 0 && links.every((l) => selected.has(l.id));
  const showLastClick = view.sort === "lastClick";
  const changeView = (next: Partial<ListView>) => {
    setCursor(-1);
    setView((v) => ({ ...v, ...next }));
  };

  return (
    <div className="min-w-0 space-y-3">
      {/* On a phone the search takes the whole line; sort, tag filter and Export share the next. */}
      <div className="flex flex-wrap items-center gap-2 sm:gap-3">
        <div className="relative min-w-0 flex-1 basis-full sm:basis-0">
          <svg
            aria-hidden
            className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400"
            viewBox="0 0 20 20"
            fill="none"
            stroke="currentColor"
            strokeWidth="2"
          >
            <circle cx="9" cy="9" r="6" />
            <path d="M14 14l4 4" />
          </svg>
          <input
            ref={search}
            type="search"
            aria-label="Search links"
            aria-keyshortcuts="/"
            placeholder="Search by URL, code or title"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape" && text === "") e.currentTarget.blur();
            }}
            className={`${inputClass} pl-9`}
          />
        </div>
        {query.isFetching && <Spinner label="Loading" />}
        <div className="min-w-0 flex-1 sm:w-44 sm:flex-none">
          <select
            aria-label="Sort links"
            value={sortChoiceOf(view).id}
            onChange={(e) => {
              const choice = SORT_CHOICES.find((c) => c.id === e.target.value)!;
              changeView({ sort: choice.sort, order: choice.order, page: 1 });
            }}
            className={inputClass}
          >
            {SORT_CHOICES.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        {tags.length > 0 && (
          <div className="min-w-0 flex-1 sm:w-36 sm:flex-none">
            <select
              aria-label="Filter by tag"
              value={tag}
              onChange={(e) => router.push(`/w/${slug}/links${filterHref({ tag: e.target.value })}`.replace(/\?$/, ""))}
              className={inputClass}
            >
              <option value="">All tags</option>
              {tags.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
            </select>
          </div>
        )}
        <a href={exportHref} download className={`${secondaryButtonClass} whitespace-nowrap`}>
          Export CSV
        </a>
      </div>
      {tag && (
        <p className="text-sm text-slate-600">
          Tagged <TagChip name={tag} color={colorOf.get(tag.toLowerCase())} /> ·{" "}
          <Link
            href={`/w/${slug}/links${filterHref({ tag: "" })}`}
            className="text-brand-600 underline underline-offset-2 hover:text-brand-700"
          >
            any tag
          </Link>
        </p>
      )}
      {selected.size > 0 && (
        <BulkTagBar slug={slug} ids={[...selected]} tags={tags} onDone={refresh} onClear={() => setSelected(new Set())}>
          <BulkActions
            slug={slug}
            ids={[...selected]}
            folders={folders}
            onDone={refresh}
            deleteOpen={bulkDeleteOpen}
            setDeleteOpen={setBulkDeleteOpen}
          />
        </BulkTagBar>
      )}
      {folder && (
        <p className="text-sm text-slate-600">
          In folder <span className="font-medium text-slate-900">{folder}</span> and its subfolders ·{" "}
          <Link
            href={`/w/${slug}/links${q ? `?q=${encodeURIComponent(q)}` : ""}`}
            className="text-brand-600 underline underline-offset-2 hover:text-brand-700"
          >
            show all
          </Link>
        </p>
      )}

      {query.isError ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-700">
          Could not load links: {query.error.message}{" "}
          <button className="font-medium underline" onClick={() => query.refetch()}>
            Try again
          </button>
        </div>
      ) : links.length === 0 && !query.isFetching ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-10 text-center text-sm text-slate-600">
          <p className="font-medium text-slate-800">No links match{q ? ` “${q}”` : ""}</p>
          <p className="mt-1">Try another search{folder ? " or another folder" : ""}.</p>
        </div>
      ) : (
        <div className="overflow-hidden rounded-lg border border-slate-200 bg-white shadow-sm">
          <div
            className={`hidden ${ROW_COLUMNS} gap-3 border-b border-slate-200 bg-slate-50 px-4 py-2 text-xs font-medium uppercase tracking-wide text-slate-600 md:grid`}
          >
            <input
              type="checkbox"
              aria-label="Select all shown links"
              checked={allShown}
              onChange={() => setSelected(allShown ? new Set() : new Set(links.map((l) => l.id)))}
              className="h-4 w-4"
            />
            <span>Link</span>
            <span className="text-right">Clicks</span>
            <span>{showLastClick ? "Last click" : "Created"}</span>
            <span className="sr-only">Actions</span>
          </div>
          <ul ref={listRef} aria-label="Links" className="divide-y divide-slate-100">
            {links.map((l, i) => (
              <LinkRow
                key={l.id}
                slug={slug}
                link={l}
                colorOf={colorOf}
                trend={trends.data?.[l.id]}
                showLastClick={showLastClick}
                selected={selected.has(l.id)}
                current={i === cursor}
                onSelect={() => toggle(l.id)}
                onDelete={() => setDeleting(l)}
                wide={wide}
              />
            ))}
          </ul>
        </div>
      )}

      {query.data && query.data.total > 0 && (
        <ListPager
          page={page}
          size={view.size as PageSize}
          total={query.data.total}
          capped={query.data.capped}
          shown={links.length}
          onPage={(p) => changeView({ page: p })}
          onSize={(size) => changeView({ size, page: 1 })}
        />
      )}

      <p className="hidden text-xs text-slate-600 md:block">
        Press{" "}
        <button
          type="button"
          className="underline underline-offset-2 hover:text-slate-900"
          onClick={() => setHelpOpen(true)}
          aria-keyshortcuts="?"
        >
          ? for keyboard shortcuts
        </button>
      </p>
      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
      <ConfirmAction
        open={deleting !== null}
        setOpen={(open) => !open && setDeleting(null)}
        action={async () => {
          const r = await deleteLinkAction(slug, { id: deleting!.id });
          if (!r.ok) throw new Error(r.error);
          return r.data;
        }}
        onDone={(r) => {
          toast(`Deleted ${r.short}`);
          setDeleting(null);
          refresh();
        }}
        title="Delete this link?"
        confirmLabel="Delete link"
      >
        <p>
          <span className="font-mono font-medium">{deleting?.short}</span> will stop working at once. This cannot be undone, and it does not
          give back this month&apos;s link allowance.
        </p>
      </ConfirmAction>
    </div>
  );
}
