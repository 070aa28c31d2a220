"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { copyText, CopyButton } from "@/components/copy-button";
import { formatDate, fromUnixSeconds } from "@/components/dates";
import { SiteMark } from "@/components/site-mark";
import { Sparkline } from "@/components/sparkline";
import { TagChip } from "@/components/tag-chip";
import { useToast } from "@/components/toast";
import { Badge } from "@/components/ui";
import type { ListedLink } from "./actions";
import { linkState } from "./link-state";

// One row of the links list, in two layouts. Desktop (md and up): checkbox, the link (short link,
// badges and the title on the first line, which the title alone may cut against the row's width;
// the tags and the destination on the second), clicks with the two-week trend, the date, edit and
// delete. Phone: one line each for the short link and the destination's host (with the tags that
// fit whole and "+N"), the clicks, and a "…" menu (copy, open, edit, delete). Row links are not
// prefetched: a page of 100 would ask the server for 200 pages each time it is shown. Only the
// layout the screen shows is rendered (`wide`), except in the server's HTML, which has both and
// lets CSS choose: half the markup per row on a client render.
// From md up a row off screen is not laid out until it scrolls near (CSS content-visibility): a
// list of 100 rows costs the layout of the rows in view. Not on phones: the containment it brings
// would clip the row's "…" menu.

/** Tags shown in a desktop row (the rest as "+N"); the link's page lists them all. */
const MAX_ROW_TAGS = 3;
/** On a phone one chip, kept narrow enough to stay whole beside the host. */
const MAX_PHONE_TAGS = 1;
export const ROW_COLUMNS = "md:grid-cols-[1.25rem_minmax(0,1fr)_6.5rem_5.5rem_4rem]";

const iconButton =
  "inline-flex shrink-0 items-center gap-1 rounded-md border border-slate-300 bg-white px-1.5 py-1 text-xs font-medium text-slate-600 hover:bg-slate-50 hover:text-slate-900";

export type RowProps = {
  slug: string;
  link: ListedLink;
  colorOf: Map<string, string>;
  /** clicks per day, the last 14 days */
  trend?: number[];
  /** the date column shows the last click instead of the creation */
  showLastClick: boolean;
  selected: boolean;
  /** the keyboard cursor (J/K) is on this row */
  current: boolean;
  onSelect: () => void;
  onDelete: () => void;
  /** the screen is md or wider (components/media-query.ts); null: unknown, both layouts */
  wide: boolean | null;
};

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

function Tags({ link, colorOf, max, phone }: { link: ListedLink; colorOf: Map<string, string>; max: number; phone?: boolean }) {
  if (link.tags.length === 0) return null;
  return (
    <span className="flex shrink-0 items-center gap-1" aria-label="Tags" role="group">
      {link.tags.slice(0, max).map((t) => (
        <TagChip key={t} name={t} color={colorOf.get(t.toLowerCase())} narrow={phone} />
      ))}
      {link.tags.length > max && (
        <span className="text-xs text-slate-600" title={link.tags.slice(max).join(", ")} data-more-tags>
          +{link.tags.length - max}
        </span>
      )}
    </span>
  );
}

export function LinkRow(props: RowProps) {
  const { link, selected, current, wide } = props;
  const shortText = link.short.replace(/^https?:\/\//, "");
  return (
    <li
      data-link-row={link.id}
      data-link-id={link.id}
      data-current={current || undefined}
      aria-current={current || undefined}
      className={`px-3 py-2 md:px-4 md:[contain-intrinsic-size:auto_64px] md:[content-visibility:auto] ${selected ? "bg-brand-50" : ""} ${current ? "outline outline-2 -outline-offset-2 outline-brand-600" : ""}`}
    >
      {wide !== false && <DesktopRow {...props} shortText={shortText} />}
      {wide !== true && <PhoneRow {...props} shortText={shortText} />}
    </li>
  );
}

function DesktopRow({
  slug,
  link,
  colorOf,
  trend,
  showLastClick,
  selected,
  onSelect,
  onDelete,
  shortText,
}: RowProps & { shortText: string }) {
  const state = linkState(link);
  const date = showLastClick ? link.lastClickedOn : link.createdOn;
  return (
    <div className={`hidden gap-x-3 md:grid md:items-center ${ROW_COLUMNS}`}>
      <input type="checkbox" aria-label={`Select ${shortText}`} checked={selected} onChange={onSelect} className="h-4 w-4" />
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
            <span title="Password protected" role="img" aria-label="Password protected" className="shrink-0 text-slate-500">
              <svg aria-hidden className="h-4 w-4" viewBox="0 0 20 20" fill="currentColor">
                <path d="M6 8V6a4 4 0 1 1 8 0v2h1a1 1 0 0 1 1 1v8a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V9a1 1 0 0 1 1-1zm2 0h4V6a2 2 0 1 0-4 0z" />
              </svg>
            </span>
          )}
          {link.title && (
            <span className="min-w-0 truncate text-sm text-slate-700" title={link.title} data-title>
              {link.title}
            </span>
          )}
        </div>
        <div className="mt-0.5 flex min-w-0 items-center gap-2 pl-7">
          <Tags link={link} colorOf={colorOf} max={MAX_ROW_TAGS} />
          <p className="min-w-0 truncate text-xs text-slate-600" title={link.url} data-destination>
            → {link.url}
          </p>
        </div>
      </div>
      <span className="flex items-center justify-end gap-2 text-sm text-slate-600">
        {trend && (
          <Sparkline values={trend} label={`${trend.reduce((a, b) => a + b, 0).toLocaleString("en")} clicks in the last 14 days`} />
        )}
        <span className="font-medium text-slate-900">{link.clicks.toLocaleString("en")}</span>
      </span>
      <span className="whitespace-nowrap text-xs text-slate-600">
        {date === null ? "never" : <time dateTime={new Date(date * 1000).toISOString()}>{formatDate(fromUnixSeconds(date))}</time>}
      </span>
      <div className="flex justify-end gap-1">
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
        </button>
      </div>
    </div>
  );
}

function PhoneRow({ slug, link, colorOf, selected, onSelect, onDelete, shortText }: RowProps & { shortText: string }) {
  const state = linkState(link);
  return (
    <div className="flex items-center gap-2 md:hidden" data-phone-row>
      <input type="checkbox" aria-label={`Select ${shortText}`} checked={selected} onChange={onSelect} className="h-4 w-4 shrink-0" />
      <div className="min-w-0 flex-1">
        <div className="flex min-w-0 items-center gap-1.5">
          <Link
            href={`/w/${slug}/links/${link.id}`}
            prefetch={false}
            data-phone-short-link
            className="min-w-0 truncate whitespace-nowrap text-sm font-medium text-brand-700"
          >
            {shortText}
          </Link>
          {state.tone !== "green" && <Badge tone={state.tone}>{state.label}</Badge>}
        </div>
        <div className="flex min-w-0 items-center gap-1.5 text-xs text-slate-600">
          <span className="min-w-0 truncate" title={link.url}>
            {hostOf(link.url)}
          </span>
          <Tags link={link} colorOf={colorOf} max={MAX_PHONE_TAGS} phone />
        </div>
      </div>
      <span className="shrink-0 text-right text-xs text-slate-600">
        <span className="font-medium text-slate-900">{link.clicks.toLocaleString("en")}</span>
        <span className="sr-only"> clicks</span>
      </span>
      <RowMenu slug={slug} link={link} shortText={shortText} onDelete={onDelete} />
    </div>
  );
}

/** The phone row's "…" menu: a menu button (WAI-ARIA menu pattern: arrows move, Escape closes). */
function RowMenu({ slug, link, shortText, onDelete }: { slug: string; link: ListedLink; shortText: string; onDelete: () => void }) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const router = useRouter();
  const toast = useToast();

  useEffect(() => {
    if (!open) return;
    box.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    const away = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const items: { label: string; run: () => void; danger?: boolean }[] = [
    {
      label: "Copy short link",
      run: async () => {
        close();
        toast((await copyText(link.short)) ? "Short URL copied" : "Could not copy; select the text and copy it by hand.");
      },
    },
    { label: "Open", run: () => router.push(`/w/${slug}/links/${link.id}`) },
    { label: "Edit", run: () => router.push(`/w/${slug}/links/${link.id}/edit`) },
    {
      label: "Delete",
      danger: true,
      run: () => {
        setOpen(false);
        onDelete();
      },
    },
  ];
  return (
    <div ref={box} className="relative shrink-0">
      <button
        ref={button}
        type="button"
        aria-label={`Actions for ${shortText}`}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex h-8 w-8 items-center justify-center rounded-md border border-slate-300 bg-white text-slate-700"
      >
        <svg aria-hidden className="h-4 w-4" viewBox="0 0 20 20" fill="currentColor">
          <circle cx="4" cy="10" r="1.6" />
          <circle cx="10" cy="10" r="1.6" />
          <circle cx="16" cy="10" r="1.6" />
        </svg>
      </button>
      {open && (
        <div
          id={menuId}
          role="menu"
          aria-label={`Actions for ${shortText}`}
          className="absolute right-0 z-20 mt-1 w-44 rounded-md border border-slate-200 bg-white py-1 shadow-lg"
          onKeyDown={(e) => {
            const all = [...(box.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
            const at = all.indexOf(document.activeElement as HTMLElement);
            if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              close();
            } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
              e.preventDefault();
              all[(at + (e.key === "ArrowDown" ? 1 : all.length - 1)) % all.length]?.focus();
            }
          }}
        >
          {items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              onClick={item.run}
              className={`block w-full px-3 py-2 text-left text-sm hover:bg-slate-100 focus:bg-slate-100 focus:outline-none ${item.danger ? "text-red-700" : "text-slate-800"}`}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
