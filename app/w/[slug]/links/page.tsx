import type { Metadata } from "next";
import Link from "next/link";
import { listLinks, toApiLink } from "@/lib/links";
import { buttonClass, PageHeader, secondaryButtonClass } from "@/components/ui";
import { listTags } from "@/lib/tags";
import { workspacePage } from "@/lib/actions/workspace";
import { folderCounts, parseLinksPageFilters } from "@/lib/links/views";
import { FolderTree } from "./folder-tree";
import { LinksTable } from "./links-table";
import { QuickCreate } from "./quick-create";

export const metadata: Metadata = { title: "Links" };

const PAGE_SIZE = 25;

export default async function LinksPage({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { slug } = await params;
  const { q, folder, tag } = parseLinksPageFilters(await searchParams);
  const { workspace } = await workspacePage(slug);
  const [folders, first, tags] = await Promise.all([
    folderCounts(workspace.id),
    listLinks(workspace, { size: PAGE_SIZE, ...(q ? { q } : {}), ...(folder ? { folder } : {}), ...(tag ? { tag: [tag] } : {}) }),
    listTags(workspace),
  ]);
  const total = folders.reduce((s, f) => s + f.count, 0);
  return (
    <>
      <QuickCreate slug={slug} />
      <PageHeader
        title="Links"
        description={
          total === 0
            ? "Short links of this workspace."
            : `${total.toLocaleString("en")} short link${total === 1 ? "" : "s"} in this workspace.`
        }
        actions={
          <div className="flex gap-2">
            <Link href={`/w/${slug}/links/import`} className={secondaryButtonClass}>
              Import CSV
            </Link>
            <Link href={`/w/${slug}/links/new${folder ? `?folder=${encodeURIComponent(folder)}` : ""}`} className={buttonClass}>
              New link
            </Link>
          </div>
        }
      />
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
          <FolderTree slug={slug} folders={folders} current={folder} q={q} />
          <LinksTable
            key={`${folder}\u0000${q}\u0000${tag}`}
            slug={slug}
            folder={folder}
            tag={tag}
            tags={tags.map((t) => ({ name: t.name, color: t.color }))}
            initialQuery={q}
            pageSize={PAGE_SIZE}
            initial={{ links: first.links.map((l) => toApiLink(l, l.host)), nextCursor: first.nextCursor }}
          />
        </div>
      )}
    </>
  );
}
