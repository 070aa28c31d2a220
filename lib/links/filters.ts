import type { Prisma } from "../db/generated/client.ts";
import { tagKey } from "../tags/schemas.ts";
import { resolveQueryDomain } from "./link-domain.ts";
import type { LinkWorkspace } from "./lookup.ts";
import type { ExportLinksQuery } from "./schemas.ts";

// The filters of the link list and the CSV export (q, folder, domain, tag), as one Prisma where.

// Prisma passes contains / startsWith to LIKE as they are: escape the wildcards so they match as plain text.
const literal = (v: string) => v.replace(/[\\%_]/g, (c) => "\\" + c);

/** The AND-ed conditions of the filters; the workspace's own links only. An unknown tag name matches nothing. */
export async function linkFilters(workspace: LinkWorkspace, query: ExportLinksQuery): Promise<Prisma.LinkWhereInput[]> {
  const domain = query.domain === undefined ? undefined : await resolveQueryDomain(workspace, query.domain);
  const and: Prisma.LinkWhereInput[] = [{ workspaceId: workspace.id }];
  if (domain) and.push({ domainKey: domain.domainKey });
  if (query.folder) and.push({ OR: [{ folder: query.folder }, { folder: { startsWith: `${literal(query.folder)}/` } }] });
  if (query.q) {
    const contains = { contains: literal(query.q), mode: "insensitive" as const };
    and.push({ OR: [{ url: contains }, { code: contains }, { title: contains }] });
  }
  if (query.tag?.length) and.push({ tags: { some: { tag: { workspaceId: workspace.id, nameKey: { in: query.tag.map(tagKey) } } } } });
  return and;
}
