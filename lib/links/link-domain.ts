import { config } from "../config/index.ts";
import { db, type DbOrTx } from "../db/client.ts";
import type { Workspace } from "../db/generated/client.ts";
import type { Issue } from "../errors.ts";
import { linkValidation } from "./rules.ts";
import { DEFAULT_DOMAIN_KEY, domainKeyOf } from "./short-code.ts";

// Which domain a link is on: the default short domain or one of its workspace's custom domains,
// named by host in requests and stored as domainId and domain key (short-code.ts).

/** Where a link lives: domainId null (key 0) is the default short domain. */
export type ResolvedDomain = { domainId: number | null; domainKey: number; host: string };

export function defaultDomain(): ResolvedDomain {
  return { domainId: null, domainKey: DEFAULT_DOMAIN_KEY, host: config().shortDomain };
}

/**
 * Verified, active hosts of the workspace: where new links may live (the link forms offer them).
 * Read here rather than asked of lib/domains, which uses the link rules (destinations) itself.
 */
export async function usableDomains(workspaceId: number): Promise<{ id: number; host: string }[]> {
  return db().domain.findMany({
    where: { workspaceId, verifiedAt: { not: null }, active: true },
    select: { id: true, host: true },
    orderBy: { host: "asc" },
  });
}

export function isDefaultHost(host: string): boolean {
  return host.toLowerCase() === config().shortDomain;
}

/**
 * The domain named on create: omitted or the default short domain, or a verified, active domain
 * of the caller's workspace; anything else is 400 validation.
 */
export async function resolveCreateDomains(workspace: Pick<Workspace, "id">, hosts: (string | undefined)[], client: DbOrTx = db()) {
  const custom = [...new Set(hosts.filter((h): h is string => !!h && !isDefaultHost(h)))];
  const rows = custom.length
    ? await client.domain.findMany({
        where: { workspaceId: workspace.id, host: { in: custom }, verifiedAt: { not: null }, active: true },
        select: { id: true, host: true },
      })
    : [];
  const byHost = new Map(rows.map((d) => [d.host, { domainId: d.id, domainKey: domainKeyOf(d.id), host: d.host } as ResolvedDomain]));
  return (host: string | undefined): ResolvedDomain | Issue => {
    if (!host || isDefaultHost(host)) return defaultDomain();
    return byHost.get(host) ?? { path: "domain", message: `${host} is not a verified, active domain of this workspace` };
  };
}

/**
 * The domain query parameter of the single-link and list endpoints: the default short domain, or
 * any domain of the caller's workspace (verified or not); another host is 400 validation.
 */
export async function resolveQueryDomain(workspace: Pick<Workspace, "id">, host: string, client: DbOrTx = db()): Promise<ResolvedDomain> {
  if (isDefaultHost(host)) return defaultDomain();
  const d = await client.domain.findFirst({ where: { workspaceId: workspace.id, host }, select: { id: true, host: true } });
  if (!d) throw linkValidation([{ path: "domain", message: `${host} is not a domain of this workspace` }]);
  return { domainId: d.id, domainKey: domainKeyOf(d.id), host: d.host };
}
