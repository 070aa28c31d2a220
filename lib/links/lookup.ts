import { database, db, type DbOrTx } from "../db/client.ts";
import type { Link, Workspace } from "../db/generated/client.ts";
import { ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { resolveQueryDomain, type ResolvedDomain } from "./link-domain.ts";
import { tagNamesOf } from "./link-tags.ts";
import { codeSchema } from "./schemas.ts";
import { hostOf, linkWithHost, type LinkWithHost } from "./serialize.ts";
import type { LiveKeyRate } from "../ratelimit/index.ts";
import { findLinksByCode, findLinksByCodeCountingRate, type LinkWithDomainAndTags } from "./sql.ts";
import { byTagName } from "../tags/service.ts";

// Finding one of the caller's links, as get, update and delete do.

/** The workspace a link service call acts for. */
export type LinkWorkspace = Pick<Workspace, "id" | "slug" | "name" | "plan">;

/**
 * How a caller names one of its links: by id (the app), or by code and optional domain host (the
 * API, docs/api.md /links/{code}).
 */
export type LinkRef = { id: number } | { code: string; domain?: string };

/** A LinkRef with its domain host resolved (the domain query is checked before the transaction). */
export type ResolvedRef = { id: number } | { code: string; domain: ResolvedDomain | undefined };

export async function resolveRef(workspace: LinkWorkspace, ref: LinkRef): Promise<ResolvedRef> {
  if ("id" in ref) return { id: ref.id };
  return { code: ref.code, domain: ref.domain === undefined ? undefined : await resolveQueryDomain(workspace, ref.domain) };
}

/**
 * The caller's link. By id: that link of the workspace. By code: with a domain, the link on it;
 * without, the one link with that code on any of the workspace's domains, 409 ambiguous_code when
 * several have it. Another workspace's link is 404. With `lock`, the row is locked (FOR UPDATE)
 * and read again.
 */
export async function findOwnLink(client: DbOrTx, workspace: LinkWorkspace, ref: ResolvedRef, lock = false): Promise<LinkWithHost> {
  let link: Link;
  let domain: ResolvedDomain | undefined;
  if ("id" in ref) {
    const found = isId(ref.id) ? await client.link.findFirst({ where: { id: ref.id, workspaceId: workspace.id } }) : null;
    if (!found) throw ServiceError.notFound();
    link = found;
  } else {
    const code = ref.code;
    domain = ref.domain;
    if (!codeSchema.safeParse(code).success) throw ServiceError.notFound();
    if (domain) {
      const found = await client.link.findUnique({ where: { domainKey_code: { domainKey: domain.domainKey, code } } });
      if (!found || found.workspaceId !== workspace.id) throw ServiceError.notFound();
      link = found;
    } else {
      const found = await client.link.findMany({ where: { workspaceId: workspace.id, code }, orderBy: { domainKey: "asc" } });
      if (found.length === 0) throw ServiceError.notFound();
      if (found.length > 1) {
        const hosts = await customHosts(client, found);
        throw ServiceError.ambiguous(
          code,
          found.map((l) => (l.domainId === null ? null : hosts.get(l.domainId)!)),
        );
      }
      link = found[0];
    }
  }
  if (lock) {
    const locked = await client.$queryRaw<{ id: number }[]>`SELECT "id" FROM "Link" WHERE "id" = ${link.id}::int FOR UPDATE`;
    const again = locked.length ? await client.link.findUnique({ where: { id: link.id } }) : null;
    if (!again || again.workspaceId !== workspace.id || ("code" in ref && again.code !== ref.code)) throw ServiceError.notFound();
    link = again;
  }
  const host = link.domainId === null ? hostOf(link) : (domain?.host ?? (await customHosts(client, [link])).get(link.domainId)!);
  return { ...linkWithHost(link, host), tagNames: (await tagNamesOf(client, [link.id])).get(link.id) ?? [] };
}

/** Hosts of the custom domains of `links` (one query; none when all are on the default domain). */
export async function customHosts(client: DbOrTx, links: Pick<Link, "domainId">[]): Promise<Map<number, string>> {
  const ids = [...new Set(links.flatMap((l) => (l.domainId === null ? [] : [l.domainId])))];
  if (ids.length === 0) return new Map();
  const rows = await client.domain.findMany({ where: { id: { in: ids } }, select: { id: true, host: true } });
  return new Map(rows.map((d) => [d.id, d.host]));
}

/** One link of the workspace (GET /api/v1/links/{code}). */
export async function getLink(workspace: LinkWorkspace, ref: LinkRef): Promise<LinkWithHost> {
  const resolved = await resolveRef(workspace, ref);
  if ("id" in resolved) return findOwnLink(db(), workspace, resolved);
  return findOwnLinkByCode(workspace, resolved.code, resolved.domain);
}

/** findOwnLink by code without a lock, in one statement (sql.ts): the API's get-link. */
async function findOwnLinkByCode(workspace: LinkWorkspace, code: string, domain: ResolvedDomain | undefined): Promise<LinkWithHost> {
  if (!codeSchema.safeParse(code).success) throw ServiceError.notFound();
  return theLink(code, await findLinksByCode(database().prismaPool, workspace.id, code, domain?.domainKey ?? null));
}

/**
 * getLink by code on any of the workspace's domains, read in the statement that counts the request
 * against its key's rate (the API's get-link on a plan with a rate: one round trip for both).
 * Null when the code is not one a link can have: the caller counts the request on its own and
 * calls getLink (which answers 404). Otherwise the count (null: nothing was counted, the key is no
 * longer live) and the answer getLink would have given, to be taken only once the count allows it.
 */
export async function getLinkCountingRate(
  workspace: LinkWorkspace,
  code: string,
  rate: LiveKeyRate,
): Promise<{ rateCount: number | null; link: () => LinkWithHost } | null> {
  if (!codeSchema.safeParse(code).success) return null;
  const { rateCount, found } = await findLinksByCodeCountingRate(database().rateLimit, workspace.id, code, rate);
  return { rateCount, link: () => theLink(code, found) };
}

/** The one link found by code; 404 when none, 409 ambiguous_code when several domains have it. */
function theLink(code: string, found: LinkWithDomainAndTags[]): LinkWithHost {
  if (found.length === 0) throw ServiceError.notFound();
  if (found.length > 1)
    throw ServiceError.ambiguous(
      code,
      found.map((f) => (f.link.domainId === null ? null : f.customHost)),
    );
  const { link, customHost, tagNames } = found[0];
  const tags = tagNames.map((name) => ({ name })).sort(byTagName);
  return { ...linkWithHost(link, link.domainId === null ? hostOf(link) : customHost!), tagNames: tags.map((t) => t.name) };
}
