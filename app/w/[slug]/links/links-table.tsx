"use client";
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { formatDate, fromUnixSeconds } from "@/components/dates";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { ApiLink } from "@/lib/links";
import { CopyButton } from "@/components/copy-button";
import { ConfirmAction } from "@/components/confirm-action";
import { Spinner } from "@/components/progress";
import { useToast } from "@/components/toast";
import { SiteMark } from "@/components/site-mark";
import { Sparkline } from "@/components/sparkline";
import { TagChip } from "@/components/tag-chip";
import { Badge, inputClass, secondaryButtonClass } from "@/components/ui";
import { deleteLinkAction, linkTrendsAction, listLinksAction, type LinksPage } from "./actions";
import { BulkTagBar } from "./bulk-tag-bar";
import { linkState } from "./link-state";

// The links table: search, folder and tag filters, newest first, keyset pages ("Show more" asks for
// the links after the last one shown, so new links never shift what is already on screen). Rows can
// be selected to add or remove a tag on all of them; "Export CSV" downloads the current filter.

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
  initialQuery,
  initial,
  pageSize,
}: {
  slug: string;
  folder: string;
  tag: string;
  tags: TagOption[];
  initialQuery: string;
  initial: LinksPage;
  pageSize: number;
}) {
  const [text, setText] = useState(initialQuery);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const q = useDebounced(text.trim(), 250);
  const [deleting, setDeleting] = useState<ApiLink | null>(null);
  const router = useRouter();
  const toast = useToast();
  const client = useQueryClient();

  useEffect(() => {
    // Keep the search in the address so it survives reloads and can be shared.
    const url = new URL(window.location.href);
    if (q) url.searchParams.set("q", q);
    else url.searchParams.delete("q");
    window.history.replaceState(window.history.state, "", url);
  }, [q]);

  const query = useInfiniteQuery({
    queryKey: ["links", slug, folder, tag, q],
    queryFn: async ({ pageParam }) => {
      const r = await listLinksAction(slug, { q, folder, tag: tag ? [tag] : [], cursor: pageParam ?? undefined, size: pageSize });
      if (!r.ok) throw new Error(r.error);
      return r.data;
    },
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: q === initialQuery ? { pages: [initial], pageParams: [null] } : undefined,
    staleTime: 5_000,
  });

  async function deleteLink(link: ApiLink) {
    const r = await deleteLinkAction(slug, { id: link.id });
    if (!r.ok) throw new Error(r.error);
    return r.data;
  }

  const links = query.data?.pages.flatMap((p) => p.links) ?? [];
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
  const toggle = (id: number) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const allShown = links.length > 0 && links.every((l) => selected.has(l.id));

  return (
    <div className="min-w-0 space-y-3">
      {/* On a phone the search takes the whole line; the tag filter and Export go below it. */}
      <div className="flex flex-wrap items-center gap-3">
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
            type="search"
            aria-label="Search links"
            placeholder="Search by URL, code or title"
            value={text}
            onChange={(e) => setText(e.target.value)}
            className={`${inputClass} pl-9`}
          />
        </div>
        {query.isFetching && <Spinner label="Loading" />}
        {tags.length > 0 && (
          <div className="w-40 shrink-0">
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
        <BulkTagBar
          slug={slug}
          ids={[...selected]}
          tags={tags}
          onDone={() => {
            setSelected(new Set());
            client.invalidateQueries({ queryKey: ["links", slug] });
            router.refresh();
          }}
          onClear={() => setSelected(new Set())}
        />
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
            className={`hidden ${ROW_COLUMNS} gap-3 border-b border-slate-200 bg-slate-50 px-4 py-2 text-xs font-medium uppercase tracking-wide text-slate-500 md:grid`}
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
            <span>Created</span>
            <span className="sr-only">Actions</span>
          </div>
          <ul aria-label="Links" className="divide-y divide-slate-100">
            {links.map((l) => (
              <LinkRow
                key={l.id}
                slug={slug}
                link={l}
                colorOf={colorOf}
                trend={trends.data?.[l.id]}
                selected={selected.has(l.id)}
                onSelect={() => toggle(l.id)}
                onDelete={() => setDeleting(l)}
              />
            ))}
          </ul>
        </div>
      )}

      <div className="flex items-center justify-between text-sm text-slate-600">
        <span>{links.length > 0 && `Showing ${links.length} link${links.length === 1 ? "" : "s"}, newest first`}</span>
        {query.hasNextPage && (
          <button type="button" className={secondaryButtonClass} disabled={query.isFetchingNextPage} onClick={() => query.fetchNextPage()}>
            {query.isFetchingNextPage ? "Loading…" : "Show more"}
          </button>
        )}
      </div>

      <ConfirmAction
        open={deleting !== null}
        setOpen={(open) => !open && setDeleting(null)}
        action={() => deleteLink(deleting!)}
        onDone={(r) => {
          toast(`Deleted ${r.short}`);
          setDeleting(null);
          client.invalidateQueries({ queryKey: ["links", slug] });
          router.refresh();
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

const iconButton =
  "inline-flex shrink-0 items-center gap-1 rounded-md border border-slate-300 bg-white px-1.5 py-1 text-xs font-medium text-slate-600 hover:bg-slate-50 hover:text-slate-900";

// Checkbox, link (short link, tags, title; the destination below), clicks with the two-week trend,
// created, actions. Row links are not prefetched: a list of 25 would ask the server for 50 pages
// each time it is shown. The folder is the tree's business (Dub and Bitly show none in the row either). The short link is
// never cut (it is what people copy); the destination takes the rest of the line.
/** Tags shown in a row (the rest as "+N"); the link's page lists them all. */
const MAX_ROW_TAGS = 2;
const ROW_COLUMNS = "md:grid-cols-[1.25rem_minmax(0,1fr)_6.5rem_5.5rem_4rem]";

function LinkRow({
  slug,
  link,
  colorOf,
  trend,
  selected,
  onSelect,
  onDelete,
}: {
  slug: string;
  link: ApiLink;
  colorOf: Map<string, string>;
  /** clicks per day, the last 14 days */
  trend?: number[];
  selected: boolean;
  onSelect: () => void;
  onDelete: () => void;
}) {
  const state = linkState(link);
  const shortText = link.short.replace(/^https?:\/\//, "");
  return (
    <li className={`grid grid-cols-[1.25rem_minmax(0,1fr)] gap-x-2 gap-y-1 px-4 py-2 ${ROW_COLUMNS} md:items-center md:gap-x-3`}>
      <input type="checkbox" aria-label={`Select ${shortText}`} checked={selected} onChange={onSelect} className="mt-1 h-4 w-4 md:mt-0" />
      <div className="min-w-0">
        <div className="flex min-w-0 items-center gap-2">
          <SiteMark url={link.url} />
          <Link
            href={`/w/${slug}/links/${link.id}`}
            prefetch={false}
            data-short-link
            className="shrink-0 whitespace-nowrap font-medium text-brand-700 hover:underline"
          >
            {shortText}
          </Link>
          <CopyButton value={link.short} label="Copy" what="Short URL" iconOnly className={iconButton} />
          {state.tone !== "green" && <Badge tone={state.tone}>{state.label}</Badge>}
          {link.hasPassword && (
            <span title="Password protected" aria-label="Password protected" className="shrink-0 text-slate-500">
              <svg aria-hidden className="h-4 w-4" viewBox="0 0 20 20" fill="currentColor">
                <path d="M6 8V6a4 4 0 1 1 8 0v2h1a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V9a1 1 0 0 1 1-1zm2 0h4V6a2 2 0 1 0-4 0z" />
              </svg>
            </span>
          )}
          {link.tags.length > 0 && (
            <span className="flex shrink-0 gap-1" aria-label="Tags">
              {link.tags.slice(0, MAX_ROW_TAGS).map((t) => (
                <TagChip key={t} name={t} color={colorOf.get(t.toLowerCase())} />
              ))}
              {link.tags.length > MAX_ROW_TAGS && (
                <span className="text-xs text-slate-600" title={link.tags.slice(MAX_ROW_TAGS).join(", ")}>
                  +{link.tags.length - MAX_ROW_TAGS}
                </span>
              )}
            </span>
          )}
          {link.title && <span className="min-w-0 truncate text-sm text-slate-600">{link.title}</span>}
        </div>
        <p className="mt-0.5 truncate pl-7 text-xs text-slate-600" title={link.url} data-destination>
          → {link.url}
        </p>
      </div>
      <div className="col-start-2 flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-slate-600 md:contents md:text-sm">
        <span className="flex items-center gap-2 md:justify-end">
          {trend && (
            <Sparkline values={trend} label={`${trend.reduce((a, b) => a + b, 0).toLocaleString("en")} clicks in the last 14 days`} />
          )}
          <span>
            <span className="font-medium text-slate-900">{link.clicks.toLocaleString("en")}</span>
            <span className="md:hidden"> clicks</span>
          </span>
        </span>
        <span className="whitespace-nowrap md:text-xs">
          <time dateTime={new Date(link.createdOn * 1000).toISOString()}>{formatDate(fromUnixSeconds(link.createdOn))}</time>
        </span>
      </div>
      <div className="col-start-2 flex gap-1 md:col-start-auto md:justify-end">
        <Link
          href={`/w/${slug}/links/${link.id}/edit`}
          prefetch={false}
          className={iconButton}
          aria-label={`Edit ${shortText}`}
          title="Edit"
        >
          <svg aria-hidden className="h-4 w-4" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8">
            <path d="M13.5 3.5l3 3L7 16H4v-3z" />
          </svg>
          <span className="md:hidden">Edit</span>
        </Link>
        <button
          type="button"
          className={`${iconButton} hover:text-red-700`}
          onClick={onDelete}
          aria-label={`Delete ${shortText}`}
          title="Delete"
        >
          <svg aria-hidden className="h-4 w-4" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8">
            <path d="M4 6h12M8 6V4h4v2M6 6l1 10h6l1-10" />
          </svg>
          <span className="md:hidden">Delete</span>
        </button>
      </div>
    </li>
  );
}
