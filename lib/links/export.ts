import { toCsv } from "../csv/index.ts";
import { IMPORT_COLUMNS, toExportRow, type ExportableLink } from "./csv-rows.ts";
import { db } from "../db/client.ts";
import type { Link, Prisma } from "../db/generated/client.ts";
import { linkFilters } from "./filters.ts";
import { tagNamesOf } from "./link-tags.ts";
import type { ExportLinksQuery } from "./schemas.ts";
import type { LinkWorkspace } from "./lookup.ts";

// The CSV export of a workspace's links (GET /api/v1/links/export and the Links page's "Export
// CSV"): the import's columns, so a file imports into another workspace unchanged (except
// passwords: only their hashes are stored). Oldest first, so an import (which creates rows in file
// order) keeps the links' order. Read in keyset batches and streamed: memory stays one batch
// whatever the number of links.

export const EXPORT_BATCH = 1000;

const select = {
  id: true,
  createdAt: true,
  url: true,
  code: true,
  domainId: true,
  title: true,
  notes: true,
  folder: true,
  active: true,
  startsOn: true,
  expiresOn: true,
  maxClicks: true,
  fallbackUrl: true,
  targeting: true,
  routing: true,
} satisfies Prisma.LinkSelect;

/** The export's rows in batches (header excluded). Filters are resolved first: a bad domain throws before any row. */
export async function exportBatches(
  workspace: LinkWorkspace,
  query: ExportLinksQuery,
  batchSize = EXPORT_BATCH,
): Promise<AsyncGenerator<(string | number)[][]>> {
  const filters = await linkFilters(workspace, query);
  const hosts = new Map(
    (await db().domain.findMany({ where: { workspaceId: workspace.id }, select: { id: true, host: true } })).map((d) => [d.id, d.host]),
  );
  async function* batches() {
    let after: Pick<Link, "createdAt" | "id"> | null = null;
    for (;;) {
      const where: Prisma.LinkWhereInput = {
        // createdAt >= is implied by the OR; said on its own it starts the index scan at the last row
        // seen instead of the workspace's first link (every batch would rescan all earlier ones).
        AND: after
          ? [
              ...filters,
              { createdAt: { gte: after.createdAt } },
              { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] },
            ]
          : filters,
      };
      const rows = await db().link.findMany({ where, select, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: batchSize });
      if (rows.length === 0) return;
      const tags = await tagNamesOf(
        db(),
        rows.map((r) => r.id),
      );
      yield rows.map((r) =>
        toExportRow({
          ...r,
          domain: r.domainId === null ? "" : (hosts.get(r.domainId) ?? ""),
          targeting: r.targeting as ExportableLink["targeting"],
          routing: r.routing as ExportableLink["routing"],
          tags: tags.get(r.id) ?? [],
        }),
      );
      if (rows.length < batchSize) return;
      after = rows[rows.length - 1];
    }
  }
  return batches();
}

/**
 * The export as a byte stream of CSV text (header first, CRLF line ends). While one batch is being
 * sent the next is read, so at most two batches are in memory.
 */
export async function exportLinksCsv(workspace: LinkWorkspace, query: ExportLinksQuery): Promise<ReadableStream<Uint8Array>> {
  const batches = await exportBatches(workspace, query);
  const encoder = new TextEncoder();
  let headerSent = false;
  let ahead: Promise<IteratorResult<(string | number)[][]>> | null = null;
  const read = () => {
    const p = batches.next();
    p.catch(() => {}); // surfaced by the pull that awaits it
    return p;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        ahead = read();
        controller.enqueue(encoder.encode(toCsv([[...IMPORT_COLUMNS]])));
        return;
      }
      try {
        const next = await (ahead ?? read());
        ahead = next.done ? null : read();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(toCsv(next.value)));
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
}

/** A file name for the download: linkhop-<workspace>-<date>.csv */
export function exportFileName(workspace: Pick<LinkWorkspace, "slug">, at = new Date()): string {
  return `linkhop-${workspace.slug.replace(/[^A-Za-z0-9_-]/g, "")}-${at.toISOString().slice(0, 10)}.csv`;
}
