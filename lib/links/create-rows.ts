import { hashPassword } from "../auth/password.ts";
import { ServiceError, type Issue } from "../errors.ts";
import { planOf } from "../plans/index.ts";
import { linkAllowanceUsed } from "./allowance.ts";
import { mergedUrl, normalizeTargeting, toDate } from "./columns.ts";
import { resolveCreateDomains, type ResolvedDomain } from "./link-domain.ts";
import type { LinkWorkspace } from "./lookup.ts";
import {
  cheapVerdicts,
  destinationHostnames,
  featuresRequested,
  linkValidation,
  missingFeature,
  refusedDestinations,
  scheduleIssues,
} from "./rules.ts";
import type { CreateLinkInput } from "./schemas.ts";
import { codeKey, isReservedAlias, takenAliasKeys, type NewLinkRow } from "./short-code.ts";
import type { NewLinkColumns } from "./sql.ts";
import { applyRouting } from "./routing.ts";
import type { Prisma } from "../db/generated/client.ts";

// The steps a create row goes through around its insert (create-sql.ts), shared by a single
// create (create.ts) and a bulk create (create-bulk.ts): validation, the cheap pre-check, the password
// hash, and tagging once inserted.

/**
 * A create row that passed validation and feature checks. Its password is hashed (data.passwordHash)
 * only once the row has also passed the cheap pre-check (precheckRows), just before the insert.
 */
export type PreparedRow = NewLinkRow & {
  password?: string;
  domain: ResolvedDomain;
  tags: string[];
  /** Destination hosts not yet checked against verified custom domains: the insert must refuse them (create-sql.ts). */
  uncheckedHosts: string[];
};

/**
 * Validation that needs the database (domain, destinations), then features. No password is hashed here.
 * `verifiedDomains: "caller checks"`: see refusedDestinations; each row then lists its uncheckedHosts.
 */
export async function prepareRows(
  workspace: LinkWorkspace,
  given: CreateLinkInput[],
  verifiedDomains: "read" | "caller checks" = "read",
): Promise<(PreparedRow | ServiceError)[]> {
  const urls = given.map((i) => mergedUrl(i.url, i.utm));
  const inputs = given.map((i, k) => {
    const u = urls[k];
    return typeof u === "string" ? { ...i, url: u } : i;
  });
  const domainOf = await resolveCreateDomains(
    workspace,
    inputs.map((i) => i.domain),
  );
  const refused = await refusedDestinations(inputs, undefined, verifiedDomains);
  const prepared = inputs.map((input, i): PreparedRow | ServiceError => {
    const domain = domainOf(input.domain);
    const unusable = "domainKey" in domain ? [] : [domain];
    const tooLong = urls[i];
    const issues: Issue[] = [...unusable, ...refused[i], ...scheduleIssues(input), ...(typeof tooLong === "string" ? [] : [tooLong])];
    if (issues.length || !("domainKey" in domain)) return linkValidation(issues);
    const routing = applyRouting(null, input);
    const denied = missingFeature(workspace, featuresRequested(input, domain));
    if (denied) return denied;
    return {
      alias: input.alias,
      password: input.password ?? undefined,
      domain,
      tags: input.tags ?? [],
      uncheckedHosts: verifiedDomains === "caller checks" ? destinationHostnames(input) : [],
      data: {
        workspaceId: workspace.id,
        domainId: domain.domainId,
        domainKey: domain.domainKey,
        url: input.url,
        title: input.title ?? "",
        notes: input.notes ?? null,
        folder: input.folder ?? "",
        active: input.active ?? true,
        startsOn: toDate(input.startsOn),
        expiresOn: toDate(input.expiresOn),
        maxClicks: input.maxClicks ?? null,
        fallbackUrl: input.fallbackUrl ?? null,
        ...(normalizeTargeting(input.targeting) ? { targeting: normalizeTargeting(input.targeting)! } : {}),
        ...(routing ? { routing: routing as Prisma.InputJsonObject } : {}),
      },
    };
  });
  return prepared;
}

/**
 * The cheap checks a row passes before its password is hashed: the allowance left this month and
 * a free alias, read before the transaction (docs/api.md: rows are taken in order as if one by one).
 * A refusal here is final (what a single create would have answered at this moment); a row that
 * goes on is still checked by the database in the transaction (ON CONFLICT on the code, the
 * allowance row), so parallel requests can never pass either.
 */
export async function precheckRows(workspace: LinkWorkspace, rows: PreparedRow[], month: string) {
  const plan = planOf(workspace.plan);
  // Without a password to hash there is nothing to save: the transaction answers every row.
  if (!rows.some((r) => r.password)) return { verdicts: rows.map(() => "go" as const), quota: null };
  const [taken, used] = await Promise.all([takenAliasKeys(rows), linkAllowanceUsed(workspace.id, month)]);
  const keys = rows.map((r) => (r.alias === undefined ? null : codeKey(r.domain.domainKey, r.alias)));
  // A reserved path is refused like a taken alias (short-code.ts insertDrawingCodes does the same).
  rows.forEach((r, i) => r.alias !== undefined && isReservedAlias(r.alias) && taken.add(keys[i]!));
  const { verdicts, current } = cheapVerdicts(keys, (key) => taken.has(key), used, plan.maxLinks);
  return { verdicts, quota: ServiceError.quota("MaxLinks", plan.maxLinks, current) };
}

// scrypt is slow on purpose (and runs on Node's small shared thread pool, as do sign-ins and
// password-protected links): hash outside the transaction, a few at a time, only rows that passed
// every cheap check, in the bulk lane of lib/auth/hash-gate.ts, so sign-ins go first.
const HASH_PARALLEL = 4;

export async function hashPasswords(rows: PreparedRow[]): Promise<void> {
  const withPassword = rows.filter((r) => r.password);
  for (let at = 0; at < withPassword.length; at += HASH_PARALLEL) {
    await Promise.all(
      withPassword.slice(at, at + HASH_PARALLEL).map(async (r) => {
        r.data.passwordHash = await hashPassword(r.password!, "bulk");
      }),
    );
  }
}

/** The insert's columns of the row, with `code` (its alias, or one insertDrawingCodes drew). */
export function linkColumns(row: PreparedRow, code: string): NewLinkColumns {
  const d = row.data;
  return {
    workspaceId: d.workspaceId,
    domainId: d.domainId ?? null,
    domainKey: row.domain.domainKey,
    code,
    url: d.url,
    title: d.title ?? "",
    notes: d.notes ?? null,
    folder: d.folder ?? "",
    active: d.active ?? true,
    startsOn: (d.startsOn as Date | null | undefined) ?? null,
    expiresOn: (d.expiresOn as Date | null | undefined) ?? null,
    maxClicks: d.maxClicks ?? null,
    fallbackUrl: d.fallbackUrl ?? null,
    passwordHash: d.passwordHash ?? null,
    targeting: d.targeting ?? null,
    routing: d.routing ?? null,
  };
}
