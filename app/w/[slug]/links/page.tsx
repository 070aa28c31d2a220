import type { Metadata } from "next";
import Link from "next/link";
import { listLinksPage } from "@/lib/links";
import { buttonClass, secondaryButtonClass } from "@/components/ui";
import { listTags } from "@/lib/tags";
import { workspacePage } from "@/lib/actions/workspace";
import { folderCounts, parseLinksPageFilters, parseLinksPageView } from "@/lib/links/views";
import { FolderTree } from "./folder-tree";
import { listedPage } from "./listed-link";
import { LinksTable } from "./links-table";
import { NewLinkButton } from "./new-link-button";
import { QuickCreate } from "./quick-create";

export const metadata: Metadata = { title: "Links" };

export default async function LinksPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  const query = await searchParams;
  const { q, folder, tag } = parseLinksPageFilters(query);
  const view = parseLinksPageView(query);
  const { workspace, can } = await workspacePage(slug);
  const [folders, first, tags] = await Promise.all([
    folderCounts(workspace.id),
    listLinksPage(workspace, { ...view, ...(q ? { q } : {}), ...(folder ? { folder } : {}), ...(tag ? { tag: [tag] } : {}) }),
    listTags(workspace),
  ]);
  const total = folders.reduce((s, f) => s + f.count, 0);
  return (
    <>
      {/* members who may not create links get no quick create */}
      {can("links.write") && <QuickCreate slug={slug} />}
      {/* The page's header in one line on a phone too (the description from sm up), so the list starts high. */}
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3 md:mb-6 md:items-end md:gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Links</h1>
          <p className="mt-1 hidden text-sm text-slate-600 sm:block">
            {total === 0
              ? "Short links of this workspace."
              : `${total.toLocaleString("en")} short link${total === 1 ? "" : "s"} in this workspace.`}
          </p>
        </div>
        <div className="flex gap-2">
          <Link href={`/w/${slug}/links/import`} className={secondaryButtonClass}>
            Import CSV
          </Link>
          <NewLinkButton href={`/w/${slug}/links/new${folder ? `?folder=${encodeURIComponent(folder)}` : ""}`} />
        </div>
      </div>
      {total === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
          <svg
            aria-hidden
            className="mx-auto h-10 w-10 text-brand-500"
            viewBox="0 0 24 24"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.6"
          >
            <path d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
          </svg>
          <p className="mt-3 font-medium text-slate-800">No links yet</p>
          <p className="mt-1 text-sm text-slate-600">Shorten a URL to get a link you can share, track and turn into a QR code.</p>
          <div className="mt-5 flex justify-center gap-2">
            <Link href={`/w/${slug}/links/new`} className={buttonClass}>
              Create your first link
            </Link>
            <Link href={`/w/${slug}/links/import`} className={secondaryButtonClass}>
              Import a CSV
            </Link>
          </div>
        </div>
      ) : (
        <div className="grid gap-6 lg:grid-cols-[11rem_minmax(0,1fr)]">
          {/* on a phone the folders come after the list */}
          <div className="order-last lg:order-none">
            <FolderTree slug={slug} folders={folders} current={folder} q={q} />
          </div>
          <LinksTable
            key={`${folder}\u0000${tag}`}
            slug={slug}
            folder={folder}
            tag={tag}
            tags={tags.map((t) => ({ name: t.name, color: t.color }))}
            folders={folders.map((f) => f.folder).filter(Boolean)}
            initialQuery={q}
            initialView={{ ...view, page: first.page }}
            initial={listedPage(first)}
          />
        </div>
      )}
    </>
  );
}
