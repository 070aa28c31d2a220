import { db } from "../db/client.ts";
import { Prisma } from "../db/generated/client.ts";
import { ServiceError, type Issue } from "../errors.ts";
import { refusedDestinations } from "../links/rules.ts";
import { findDomain, requireCustomDomains, view, type DomainView, type WorkspaceRef } from "./index.ts";
import type { ApiDomain, UpdateDomainInput } from "./schemas.ts";

// What a verified custom domain serves besides short links: the app-link files
// (/.well-known/apple-app-site-association, /.well-known/assetlinks.json) and where / and an
// unknown code redirect. Edited here for the API and the app alike; lib/redirects/domain-pages.ts
// serves them from its in-memory mirror of the domains (refreshed by the Domain notify trigger).

/** The API's domain object (README "Domains API and app links"): exactly these fields. */
export function toApiDomain(d: DomainView): ApiDomain {
  return {
    id: d.id,
    host: d.host,
    verified: d.verified,
    active: d.active,
    txtName: d.txtName,
    txtValue: d.txtValue,
    appleAppSiteAssociation: d.appleAppSiteAssociation,
    assetLinks: d.assetLinks,
    rootUrl: d.rootUrl,
    notFoundUrl: d.notFoundUrl,
  };
}

/** One domain of the workspace by host (another workspace's host: 404, as for an unknown one). */
export async function getDomain(workspace: WorkspaceRef, host: string): Promise<DomainView> {
  return view(await findDomain(workspace.id, host));
}

/**
 * Sets any of the four settings (null clears one; a field left out stays). The URLs pass the same
 * destination checks as a link's (denylist, no short-link host of this service, the domain itself
 * included once verified). Feature CustomDomains, like adding and verifying.
 */
export async function updateDomainSettings(workspace: WorkspaceRef, host: string, patch: UpdateDomainInput): Promise<DomainView> {
  requireCustomDomains(workspace);
  const domain = await findDomain(workspace.id, host);
  const urls = (["rootUrl", "notFoundUrl"] as const).flatMap((field) => {
    const url = patch[field];
    return url ? [{ field, url }] : [];
  });
  if (urls.length) {
    const refused = await refusedDestinations(urls.map((u) => ({ url: u.url })));
    const issues: Issue[] = refused.flatMap((list, i) => list.map((issue) => ({ path: urls[i].field, message: issue.message })));
    if (issues.length) throw ServiceError.validation(issues, issues.map((i) => `${i.path}: ${i.message}`).join(" "));
  }
  const data: Prisma.DomainUpdateManyMutationInput = {};
  if (patch.appleAppSiteAssociation !== undefined)
    data.appleAppSiteAssociation =
      patch.appleAppSiteAssociation === null ? Prisma.DbNull : (patch.appleAppSiteAssociation as Prisma.InputJsonObject);
  if (patch.assetLinks !== undefined)
    data.assetLinks = patch.assetLinks === null ? Prisma.DbNull : (patch.assetLinks as Prisma.InputJsonArray);
  if (patch.rootUrl !== undefined) data.rootUrl = patch.rootUrl;
  if (patch.notFoundUrl !== undefined) data.notFoundUrl = patch.notFoundUrl;
  if (Object.keys(data).length === 0) return view(domain);
  // By id and workspace: a domain removed meanwhile is not found rather than a failure.
  const { count } = await db().domain.updateMany({ where: { id: domain.id, workspaceId: workspace.id }, data });
  const updated = count === 1 ? await db().domain.findUnique({ where: { id: domain.id } }) : null;
  if (!updated) throw ServiceError.notFound(`No domain ${host} in this workspace.`);
  return view(updated);
}
