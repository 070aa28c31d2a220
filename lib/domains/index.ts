import { randomBytes } from "node:crypto";
import { z } from "zod";
import { config } from "../config/index.ts";
import { db, uniqueViolation, type Tx } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { withEvents } from "../events/index.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import { findWorkspace } from "../workspaces/access.ts";
import { lookupTxt } from "./dns.ts";

// Custom domains: a workspace adds a host, proves it owns it with a DNS TXT record, and from then
// on links can live on that host. Everything the app, the admin CLI and the API know about
// domains goes through here.

export const TXT_PREFIX = "_linkhop";
export const TXT_VALUE_PREFIX = "linkhop-verify=";

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export const hostSchema = z
  .string({ message: "Enter a host name such as links.example.com." })
  .trim()
  .toLowerCase()
  .transform((v) => v.replace(/\.$/, ""))
  .superRefine((host, ctx) => {
    const problem = hostProblem(host);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** Why `host` cannot be a custom domain, or null when it can. */
export function hostProblem(host: string): string | null {
  if (!host) return "Enter a host name such as links.example.com.";
  if (/^[a-z]+:\/\//.test(host) || host.includes("/")) return "Enter only the host name, without https:// or a path.";
  if (host.includes(":")) return "Enter the host name without a port.";
  if (host.length > 253) return "A host name has at most 253 characters.";
  const labels = host.split(".");
  if (labels.length < 2) return "Use a full host name with a dot, such as links.example.com.";
  if (!labels.every((l) => LABEL.test(l))) return "A host name has labels of letters, digits and dashes separated by dots.";
  if (/^\d+$/.test(labels[labels.length - 1])) return "Use a host name, not an IP address.";
  const cfg = config();
  const own = [cfg.shortDomain, cfg.appHost].map((h) => h.split(":")[0].toLowerCase());
  if (own.includes(host)) return "That host is the service's own domain.";
  return null;
}

export type DomainView = {
  id: number;
  host: string;
  verified: boolean;
  verifiedAt: Date | null;
  active: boolean;
  createdAt: Date;
  txtName: string;
  txtValue: string;
  /** The record that points the host at the service (a CNAME to the default short domain). */
  target: { type: "CNAME"; name: string; value: string };
  links: number;
  /** app-link files and redirects served on the verified domain (app-links.ts) */
  appleAppSiteAssociation: Record<string, unknown> | null;
  assetLinks: Record<string, unknown>[] | null;
  rootUrl: string | null;
  notFoundUrl: string | null;
};

export function txtRecordFor(host: string, token: string) {
  return { txtName: `${TXT_PREFIX}.${host}`, txtValue: `${TXT_VALUE_PREFIX}${token}` };
}

function targetHost(): string {
  return config().shortDomain.split(":")[0];
}

type DomainRow = {
  id: number;
  host: string;
  txtToken: string;
  verifiedAt: Date | null;
  active: boolean;
  createdAt: Date;
  appleAppSiteAssociation: unknown;
  assetLinks: unknown;
  rootUrl: string | null;
  notFoundUrl: string | null;
};

export function view(d: DomainRow, links = 0): DomainView {
  return {
    id: d.id,
    host: d.host,
    verified: d.verifiedAt !== null,
    verifiedAt: d.verifiedAt,
    active: d.active,
    createdAt: d.createdAt,
    ...txtRecordFor(d.host, d.txtToken),
    target: { type: "CNAME", name: d.host, value: targetHost() },
    links,
    appleAppSiteAssociation: (d.appleAppSiteAssociation ?? null) as DomainView["appleAppSiteAssociation"],
    assetLinks: (d.assetLinks ?? null) as DomainView["assetLinks"],
    rootUrl: d.rootUrl,
    notFoundUrl: d.notFoundUrl,
  };
}

export type WorkspaceRef = { id: number; slug: string; name: string; plan: string };

export function requireCustomDomains(ws: WorkspaceRef) {
  if (!hasFeature(planOf(ws.plan), "CustomDomains")) {
    throw ServiceError.feature("CustomDomains", "Custom domains are not included in your plan. Upgrade to Pro or higher to use them.");
  }
}

export async function listDomains(workspaceId: number): Promise<DomainView[]> {
  const rows = await db().domain.findMany({
    where: { workspaceId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    include: { _count: { select: { links: true } } },
  });
  return rows.map((r) => view(r, r._count.links));
}

/**
 * Adds `host` to the workspace with a fresh verification token. A host another workspace has
 * VERIFIED is refused (without saying which workspace). One that other workspaces have only added
 * stays theirs as it is: anyone can type any host, so a pending claim reserves nothing and is never
 * touched from here; each workspace gets its own token, and whoever's token turns up in DNS gets
 * the host (verifyDomain), which is when the other pending claims go.
 */
export async function addDomain(workspace: WorkspaceRef, rawHost: unknown): Promise<DomainView> {
  requireCustomDomains(workspace);
  const host = parseInput(hostSchema, rawHost);
  const token = randomBytes(16).toString("hex");
  try {
    const row = await db().$transaction(async (tx) => {
      const own = await tx.domain.findUnique({ where: { workspaceId_host: { workspaceId: workspace.id, host } } });
      if (own) throw hostRefused(`${host} is already added to this workspace.`);
      if (await tx.domain.findUnique({ where: { verifiedHost: host }, select: { id: true } })) throw inUseElsewhere(host);
      return tx.domain.create({ data: { workspaceId: workspace.id, host, txtToken: token } });
    });
    return view(row);
  } catch (e) {
    if (uniqueViolation(e)) throw hostRefused(`${host} is already added to this workspace.`);
    throw e;
  }
}

// A host that cannot be added (already here, or another workspace's) is bad input, the API's 400
// validation (README "Domains API and app links"; the spec's error table has no conflict), the
// same answer in the app and the admin CLI.
function hostRefused(message: string): ServiceError {
  return ServiceError.validation([{ path: "host", message }], message);
}

function inUseElsewhere(host: string): ServiceError {
  return hostRefused(`${host} is already in use by another workspace.`);
}

/** The workspace's domain by host; another workspace's host is not found, like an unknown one. */
export async function findDomain(workspaceId: number, host: string) {
  const d = await db().domain.findFirst({ where: { workspaceId, host: host.trim().toLowerCase().replace(/\.$/, "") } });
  if (!d) throw ServiceError.notFound(`No domain ${host} in this workspace.`);
  return d;
}

export type VerifyResult = { domain: DomainView; verified: boolean; alreadyVerified: boolean; message: string };

/**
 * Looks up the TXT record at _linkhop.<host> (resolvers from DNS_SERVERS when set) and, when it
 * holds the token, marks the domain verified and emits domain.verified in the same transaction.
 * Verifying an already verified domain changes nothing and sends no second event.
 */
export async function verifyDomain(workspace: WorkspaceRef, domainId: number): Promise<VerifyResult> {
  requireCustomDomains(workspace);
  const domain = isId(domainId) ? await db().domain.findFirst({ where: { id: domainId, workspaceId: workspace.id } }) : null;
  if (!domain) throw ServiceError.notFound("No such domain in this workspace.");
  if (domain.verifiedAt) return { domain: view(domain), verified: true, alreadyVerified: true, message: `${domain.host} is verified.` };

  const { txtName, txtValue } = txtRecordFor(domain.host, domain.txtToken);
  const lookup = await lookupTxt(txtName);
  if (!lookup.ok) {
    return { domain: view(domain), verified: false, alreadyVerified: false, message: lookup.message };
  }
  if (!lookup.values.includes(txtValue)) {
    const seen = lookup.values.length
      ? ` Found: ${lookup.values
          .slice(0, 3)
          .map((v) => `"${v}"`)
          .join(", ")}.`
      : "";
    return {
      domain: view(domain),
      verified: false,
      alreadyVerified: false,
      message: `The TXT record at ${txtName} does not contain ${txtValue} yet.${seen} DNS changes can take a few minutes.`,
    };
  }

  let updated;
  try {
    updated = await withEvents(async (tx, emit) => {
      // Every workspace's row for the host is locked first, so two workspaces proving the same host
      // at once go one after the other: the second finds its row removed by the first.
      await lockHostRows(tx, domain.host);
      // Claimed with a condition so two concurrent checks send one event; verifiedHost's unique
      // index is the last word should two workspaces still claim the host.
      const claimed = await tx.domain.updateMany({
        where: { id: domain.id, verifiedAt: null },
        data: { verifiedAt: new Date(), verifiedHost: domain.host },
      });
      const row = await tx.domain.findUnique({ where: { id: domain.id } });
      // Removed meanwhile: another workspace verified the host first (below) or it was removed here.
      if (!row) throw ServiceError.notFound("No such domain in this workspace.");
      if (claimed.count === 1) {
        // The host is this workspace's now: the other workspaces' pending claims to it have lost.
        await tx.domain.deleteMany({ where: { host: row.host, verifiedAt: null, id: { not: row.id } } });
        await emit(workspace, "domain.verified", { domain: { id: row.id, host: row.host } });
      }
      return row;
    });
  } catch (e) {
    if (uniqueViolation(e)) throw inUseElsewhere(domain.host);
    throw e;
  }
  return { domain: view(updated), verified: true, alreadyVerified: false, message: `${updated.host} is verified.` };
}

/** Locks every workspace's row for `host`, in id order (so two lockers cannot deadlock). */
async function lockHostRows(tx: Tx, host: string): Promise<void> {
  await tx.$queryRaw`SELECT "id" FROM "Domain" WHERE "host" = ${host} ORDER BY "id" FOR UPDATE`;
}

/** Removes a domain. Refused while links live on it: their short URLs would silently break. */
export async function removeDomain(workspace: WorkspaceRef, domainId: number): Promise<{ id: number; host: string }> {
  return db().$transaction(async (tx) => {
    const domain = isId(domainId) ? await tx.domain.findFirst({ where: { id: domainId, workspaceId: workspace.id } }) : null;
    if (!domain) throw ServiceError.notFound("No such domain in this workspace.");
    const links = await tx.link.count({ where: { domainId: domain.id } });
    if (links > 0) {
      throw ServiceError.conflict(
        `${links} link${links === 1 ? "" : "s"} still use${links === 1 ? "s" : ""} ${domain.host}. Delete them first.`,
      );
    }
    await tx.domain.delete({ where: { id: domain.id } });
    return { id: domain.id, host: domain.host };
  });
}

// Admin CLI (docs/operations.md "Admin CLI"): domain:add --slug --host, domain:verify --slug --host.
export async function addDomainBySlug(slug: string, host: string) {
  const d = await addDomain(await findWorkspace(slug), host);
  return { id: d.id, host: d.host, txtName: d.txtName, txtValue: d.txtValue };
}

/** verifyDomain by host (the API and the CLI): the plan's CustomDomains first, then the host. */
export async function verifyDomainByHost(workspace: WorkspaceRef, host: string): Promise<VerifyResult> {
  requireCustomDomains(workspace);
  return verifyDomain(workspace, (await findDomain(workspace.id, host)).id);
}

export async function verifyDomainBySlug(slug: string, host: string) {
  const r = await verifyDomainByHost(await findWorkspace(slug), host);
  if (!r.verified) throw ServiceError.validation(r.message);
  return { id: r.domain.id, host: r.domain.host, verified: true };
}
