import type { z } from "zod";
import { hashPassword } from "../auth/password.ts";
import { db, type DbOrTx, type Tx } from "../db/client.ts";
import { Prisma, type Link, type Workspace } from "../db/generated/client.ts";
import { joinedIssueTexts, parseInput, ServiceError, type Issue } from "../errors.ts";
import { withEvents } from "../events/index.ts";
import { isId } from "../ids.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import { linkAllowanceUsed, monthOf, reserveLinkAllowance } from "./allowance.ts";
import { linkFilters } from "./filters.ts";
import { addTagsToNewLinks, replaceLinkTags, tagNamesOf } from "./link-tags.ts";
import { mergeUtm } from "./utm.ts";
import {
  cheapVerdicts,
  featuresRequested,
  keptDenylistedDestinations,
  linkValidation,
  missingFeature,
  refusedDestinations,
  scheduleIssues,
} from "./rules.ts";
import { resolveCreateDomains, resolveQueryDomain, type ResolvedDomain } from "./link-domain.ts";
import {
  aliasTakenByIndex,
  codeKey,
  insertWithCodes,
  isReservedAlias,
  refuseTakenAlias,
  takenAliasKeys,
  type NewLinkRow,
} from "./short-code.ts";
import {
  BULK_MAX_PASSWORD_ROWS,
  codeSchema,
  createLinkSchema,
  MAX_URL_LENGTH,
  PAGE_DEFAULT,
  type CreateLinkInput,
  type ListLinksQuery,
  type UpdateLinkInput,
} from "./schemas.ts";
import { changedFields, hostOf, toWebhookLink, type LinkWithHost } from "./serialize.ts";

// The link service: the single place of link rules, used by the API, the app and the admin CLI.
// Each use case is one transaction (withEvents) that also records its webhook event. Inputs are
// already parsed by the schemas in schemas.ts; every refusal is a ServiceError, raised in the order
// of the README's error table: 400 validation -> 403 feature -> 403 quota -> 404 / 409.

export type LinkWorkspace = Pick<Workspace, "id" | "slug" | "name" | "plan">;

const BULK_EVENT_SIZE = 100;
const linkWithHost = (link: Link, host: string): LinkWithHost => ({ ...link, host });
const webhookLink = (link: LinkWithHost) => toWebhookLink(link, link.host);

// ---------------------------------------------------------------------------------------------
// Create

/**
 * A create row that passed validation and feature checks. Its password is hashed (data.passwordHash)
 * only once the row has also passed the cheap pre-check (precheckRows), just before the insert.
 */
type PreparedRow = NewLinkRow & { password?: string; domain: ResolvedDomain; tags: string[] };

/** The destination with the body's UTM values merged in, or the issue when it grows too long. */
function mergedUrl(url: string, utm: CreateLinkInput["utm"]): string | Issue {
  const merged = mergeUtm(url, utm);
  return merged.length > MAX_URL_LENGTH
    ? { path: "utm", message: `with the UTM parameters, url is longer than ${MAX_URL_LENGTH} characters` }
    : merged;
}

const toDate = (s: number | null | undefined) => (s === null || s === undefined ? null : new Date(s * 1000));

/** Validation that needs the database (domain, destinations), then features. No password is hashed here. */
async function prepareRows(workspace: LinkWorkspace, given: CreateLinkInput[]): Promise<(PreparedRow | ServiceError)[]> {
  const urls = given.map((i) => mergedUrl(i.url, i.utm));
  const inputs = given.map((i, k) => {
    const u = urls[k];
    return typeof u === "string" ? { ...i, url: u } : i;
  });
  const domainOf = await resolveCreateDomains(
    workspace,
    inputs.map((i) => i.domain),
  );
  const refused = await refusedDestinations(inputs);
  const prepared = inputs.map((input, i): PreparedRow | ServiceError => {
    const domain = domainOf(input.domain);
    const unusable = "domainKey" in domain ? [] : [domain];
    const tooLong = urls[i];
    const issues: Issue[] = [...unusable, ...refused[i], ...scheduleIssues(input), ...(typeof tooLong === "string" ? [] : [tooLong])];
    if (issues.length || !("domainKey" in domain)) return linkValidation(issues);
    const denied = missingFeature(workspace, featuresRequested(input, domain));
    if (denied) return denied;
    return {
      alias: input.alias,
      password: input.password ?? undefined,
      domain,
      tags: input.tags ?? [],
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
      },
    };
  });
  return prepared;
}

/**
 * The cheap checks a row passes before its password is hashed: the allowance left this month and
 * a free alias, read before the transaction (README: rows are taken in order as if one by one).
 * A refusal here is final (what a single create would have answered at this moment); a row that
 * goes on is still checked by the database in the transaction (ON CONFLICT on the code, the
 * allowance row), so parallel requests can never pass either.
 */
async function precheckRows(workspace: LinkWorkspace, rows: PreparedRow[], month: string) {
  const plan = planOf(workspace.plan);
  // Without a password to hash there is nothing to save: the transaction answers every row.
  if (!rows.some((r) => r.password)) return { verdicts: rows.map(() => "go" as const), quota: null };
  const [taken, used] = await Promise.all([takenAliasKeys(rows), linkAllowanceUsed(workspace.id, month)]);
  const keys = rows.map((r) => (r.alias === undefined ? null : codeKey(r.domain.domainKey, r.alias)));
  // A reserved path is refused like a taken alias (insertWithCodes does the same).
  rows.forEach((r, i) => r.alias !== undefined && isReservedAlias(r.alias) && taken.add(keys[i]!));
  const { verdicts, current } = cheapVerdicts(keys, (key) => taken.has(key), used, plan.maxLinks);
  return { verdicts, quota: ServiceError.quota("MaxLinks", plan.maxLinks, current) };
}

// scrypt is slow on purpose (and runs on Node's small shared thread pool, as do sign-ins and
// password-protected links): hash outside the transaction, a few at a time, only rows that passed
// every cheap check.
const HASH_PARALLEL = 4;

async function hashPasswords(rows: PreparedRow[]): Promise<void> {
  const withPassword = rows.filter((r) => r.password);
  for (let at = 0; at < withPassword.length; at += HASH_PARALLEL) {
    await Promise.all(
      withPassword.slice(at, at + HASH_PARALLEL).map(async (r) => {
        r.data.passwordHash = await hashPassword(r.password!);
      }),
    );
  }
}

/** Tags new links (creating missing tags); returns each link's tag names as the API shows them. */
async function tagNew(tx: Tx, workspace: LinkWorkspace, ids: number[], names: string[][]): Promise<string[][]> {
  if (names.every((n) => n.length === 0)) return names.map(() => []);
  await addTagsToNewLinks(tx, workspace.id, ids, names);
  const byLink = await tagNamesOf(tx, ids);
  return ids.map((id) => byLink.get(id) ?? []);
}

/** Creates one link (link.created). */
export async function createLink(workspace: LinkWorkspace, input: CreateLinkInput): Promise<LinkWithHost> {
  const [row] = await prepareRows(workspace, [input]);
  if (row instanceof ServiceError) throw row;
  const plan = planOf(workspace.plan);
  const month = monthOf();
  if (row.password) {
    // Only a password makes the pre-check worth its reads: without one the transaction answers as fast.
    const { verdicts, quota } = await precheckRows(workspace, [row], month);
    if (verdicts[0] === "quota") throw quota;
    if (verdicts[0] === "taken") throw ServiceError.aliasTaken(row.alias!);
    await hashPasswords([row]);
  }
  return withEvents(async (tx, emit) => {
    const [inserted] = await insertWithCodes(tx, [row]);
    const link =
      inserted === "taken"
        ? null
        : {
            ...linkWithHost(inserted, row.domain.host),
            tagNames: await tagNew(tx, workspace, [inserted.id], [row.tags]).then((t) => t[0]),
          };
    if (link) await emit(workspace, "link.created", { link: webhookLink(link) });
    // The allowance is taken last: its row lock serializes the workspace's creates, so it is held
    // only from here to commit. A refusal rolls back the insert and the event with it.
    const reservation = await reserveLinkAllowance(tx, workspace.id, plan.maxLinks, 1, month);
    if (reservation.granted === 0) throw ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
    if (!link) throw ServiceError.aliasTaken(row.alias!);
    return link;
  });
}

/**
 * batch: set by the app's CSV import, which sends an import of N rows as ceil(N/100) calls of at
 * most 100 rows; each call's event then says which part of the whole import it is.
 */
export type BulkOptions = { batch?: { index: number; count: number } };

/** A row's result; `error` is what a single create would have thrown (callers map it to a body). */
export type BulkRowResult =
  { index: number; status: 201; link: LinkWithHost } | { index: number; status: 400 | 403 | 409; error: ServiceError };

/**
 * Creates many links in one transaction and reports a result per row, in input order (index from 0).
 * Rows are taken in order as if one by one: each row that would pass the monthly allowance fails
 * with the quota error and no row after it is created. Events: link.bulk_created in parts of 100.
 * Passwords are hashed only for rows that passed every cheap check, at most BULK_MAX_PASSWORD_ROWS
 * of them: a request with more such rows is refused whole (400 validation) before anything is hashed.
 */
export async function bulkCreateLinks(workspace: LinkWorkspace, rows: unknown[], options: BulkOptions = {}): Promise<BulkRowResult[]> {
  const plan = planOf(workspace.plan);
  if (!hasFeature(plan, "BulkLinks")) throw ServiceError.feature("BulkLinks");
  const results: (BulkRowResult | undefined)[] = new Array(rows.length);
  const parsed: { index: number; input: CreateLinkInput }[] = [];
  rows.forEach((raw, index) => {
    try {
      parsed.push({ index, input: parseLinkInput(createLinkSchema, raw) });
    } catch (e) {
      if (!(e instanceof ServiceError)) throw e;
      results[index] = { index, status: 400, error: e };
    }
  });
  const prepared = await prepareRows(
    workspace,
    parsed.map((p) => p.input),
  );
  const checked: { index: number; row: PreparedRow }[] = [];
  prepared.forEach((p, k) => {
    const index = parsed[k].index;
    if (p instanceof ServiceError) results[index] = { index, status: p.code === "validation" ? 400 : 403, error: p };
    else checked.push({ index, row: p });
  });

  // Cheap checks before any password is hashed: rows over the allowance or with a taken alias are
  // answered now. Rows refused for the allowance get the transaction's quota error when it has one.
  const month = monthOf();
  const pre = await precheckRows(
    workspace,
    checked.map((c) => c.row),
    month,
  );
  let quota = pre.quota;
  const overAllowance: number[] = [];
  const candidates: { index: number; row: PreparedRow }[] = [];
  checked.forEach((c, k) => {
    const verdict = pre.verdicts[k];
    if (verdict === "quota") overAllowance.push(c.index);
    else if (verdict === "taken") results[c.index] = { index: c.index, status: 409, error: ServiceError.aliasTaken(c.row.alias!) };
    else candidates.push(c);
  });
  // One request hashes a bounded number of passwords (each takes a thread of the pool for ~50 ms):
  // more rows to hash than that refuses the whole request before anything is hashed or created.
  const toHash = candidates.filter((c) => c.row.password).length;
  if (toHash > BULK_MAX_PASSWORD_ROWS) throw tooManyPasswords(toHash);
  await hashPasswords(candidates.map((c) => c.row));

  if (candidates.length > 0) {
    await withEvents(
      async (tx, emit) => {
        const inserted = await insertWithCodes(
          tx,
          candidates.map((c) => c.row),
        );
        const wanted = inserted.filter((l) => l !== "taken").length;
        const reservation = await reserveLinkAllowance(tx, workspace.id, plan.maxLinks, wanted, month);
        // What was left of the allowance before this request: rows past it fail with the quota error.
        let units = plan.maxLinks - (reservation.current - reservation.granted);
        const txQuota = ServiceError.quota("MaxLinks", plan.maxLinks, reservation.current);
        const kept: LinkWithHost[] = [];
        const dropped: number[] = [];
        candidates.forEach(({ index, row }, k) => {
          const l = inserted[k];
          if (units <= 0) {
            // Parallel creates used the allowance since the pre-check: the database's count is the answer.
            quota = txQuota;
            results[index] = { index, status: 403, error: txQuota };
            if (l !== "taken") dropped.push(l.id);
          } else if (l === "taken") {
            results[index] = { index, status: 409, error: ServiceError.aliasTaken(row.alias!) };
          } else {
            units--;
            const link = linkWithHost(l, row.domain.host);
            kept.push(link);
            results[index] = { index, status: 201, link };
          }
        });
        if (dropped.length) await tx.link.deleteMany({ where: { id: { in: dropped } } });
        const tagsOf = new Map(candidates.map(({ row }, k) => [inserted[k] === "taken" ? -1 : (inserted[k] as Link).id, row.tags]));
        const names = await tagNew(
          tx,
          workspace,
          kept.map((l) => l.id),
          kept.map((l) => tagsOf.get(l.id) ?? []),
        );
        kept.forEach((l, k) => (l.tagNames = names[k]));
        const count = Math.ceil(kept.length / BULK_EVENT_SIZE);
        for (let part = 0; part < count; part++) {
          const links = kept.slice(part * BULK_EVENT_SIZE, (part + 1) * BULK_EVENT_SIZE).map(webhookLink);
          // A caller sending one part of a larger import (at most 100 rows) numbers it itself.
          const batch = options.batch && count === 1 ? options.batch : { index: part + 1, count };
          await emit(workspace, "link.bulk_created", { links, batch });
        }
      },
      { timeout: 60_000 },
    );
  }
  // (A row is refused for the allowance by the pre-check only when the pre-check read the allowance.)
  for (const index of overAllowance) results[index] = { index, status: 403, error: quota! };
  return results as BulkRowResult[];
}

function tooManyPasswords(rows: number): ServiceError {
  return linkValidation([
    {
      path: "links",
      message: `at most ${BULK_MAX_PASSWORD_ROWS} links with a password may be created per request (this one has ${rows}); send the rest in another request`,
    },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Read, edit, delete one link

/**
 * How a caller names one of its links: by id (the app), or by code and optional domain host (the
 * API, README "JSON API (v1)" /links/{code}).
 */
export type LinkRef = { id: number } | { code: string; domain?: string };

/** A LinkRef with its domain host resolved (the domain query is checked before the transaction). */
type ResolvedRef = { id: number } | { code: string; domain: ResolvedDomain | undefined };

async function resolveRef(workspace: LinkWorkspace, ref: LinkRef): Promise<ResolvedRef> {
  if ("id" in ref) return { id: ref.id };
  return { code: ref.code, domain: ref.domain === undefined ? undefined : await resolveQueryDomain(workspace, ref.domain) };
}

/**
 * The caller's link. By id: that link of the workspace. By code: with a domain, the link on it;
 * without, the one link with that code on any of the workspace's domains, 409 ambiguous_code when
 * several have it. Another workspace's link is 404. With `lock`, the row is locked (FOR UPDATE)
 * and read again.
 */
async function findOwnLink(client: DbOrTx, workspace: LinkWorkspace, ref: ResolvedRef, lock = false): Promise<LinkWithHost> {
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
async function customHosts(client: DbOrTx, links: Pick<Link, "domainId">[]): Promise<Map<number, string>> {
  const ids = [...new Set(links.flatMap((l) => (l.domainId === null ? [] : [l.domainId])))];
  if (ids.length === 0) return new Map();
  const rows = await client.domain.findMany({ where: { id: { in: ids } }, select: { id: true, host: true } });
  return new Map(rows.map((d) => [d.id, d.host]));
}

/** One link of the workspace (GET /api/v1/links/{code}). */
export async function getLink(workspace: LinkWorkspace, ref: LinkRef): Promise<LinkWithHost> {
  return findOwnLink(db(), workspace, await resolveRef(workspace, ref));
}

/** Targeting in one canonical form (sorted keys); null when it targets nothing. */
function normalizeTargeting(t: CreateLinkInput["targeting"]): { ios?: string; android?: string; geo?: Record<string, string> } | null {
  if (!t) return null;
  const geo = Object.fromEntries(Object.entries(t.geo ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
  const out = {
    ...(t.android ? { android: t.android } : {}),
    ...(Object.keys(geo).length ? { geo } : {}),
    ...(t.ios ? { ios: t.ios } : {}),
  };
  return Object.keys(out).length ? out : null;
}

function sameTargeting(stored: unknown, next: ReturnType<typeof normalizeTargeting>): boolean {
  const canon = (v: unknown): string =>
    v === null || v === undefined
      ? "null"
      : typeof v === "object" && !Array.isArray(v)
        ? `{${Object.keys(v as object)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canon((v as Record<string, unknown>)[k])}`)
            .join(",")}}`
        : JSON.stringify(v);
  return canon(stored) === canon(next);
}

export type UpdateResult = {
  link: LinkWithHost;
  /** names of webhook link fields that changed ([] when only targeting or the password did) */
  changed: string[];
  /** false when the edit changed nothing: no write, no event */
  written: boolean;
};

/**
 * Edits one link (link.updated { link, changed }). An edit that changes nothing writes nothing and
 * sends no event; one that changes only settings outside the link object sends changed: [].
 */
/** The cheap refusals of an edit (404, 409 ambiguous_code, 409 alias_taken), before anything slow. */
async function precheckUpdate(workspace: LinkWorkspace, ref: ResolvedRef, alias: string | undefined): Promise<void> {
  const link = await findOwnLink(db(), workspace, ref);
  if (alias === undefined || alias === link.code) return;
  await refuseTakenAlias(link.domainKey, alias);
}

export async function updateLink(workspace: LinkWorkspace, ref: LinkRef, patch: UpdateLinkInput): Promise<UpdateResult> {
  const resolved = await resolveRef(workspace, ref);
  if (patch.utm && patch.url !== undefined) {
    const url = mergedUrl(patch.url, patch.utm);
    if (typeof url !== "string") throw linkValidation([url]);
    patch = { ...patch, url };
  }
  const issues = [...(await refusedDestinations([patch]))[0], ...scheduleIssues(patch)];
  if (issues.length) throw linkValidation(issues);
  const denied = missingFeature(workspace, featuresRequested(patch));
  if (denied) throw denied;
  // A new password is hashed only for an edit that can go through: the link is the caller's and a
  // new alias is free (both read again, and enforced, in the transaction).
  if (patch.password) await precheckUpdate(workspace, resolved, patch.alias);
  const passwordHash = patch.password ? await hashPassword(patch.password) : undefined;

  return withEvents(async (tx, emit) => {
    const before = await findOwnLink(tx, workspace, resolved, true);
    const denylisted = keptDenylistedDestinations(before, patch);
    if (denylisted.length) throw linkValidation(denylisted);
    if (patch.utm && patch.url === undefined) {
      // UTM values alone: merged into the current destination (its host is already allowed).
      const url = mergedUrl(before.url, patch.utm);
      if (typeof url !== "string") throw linkValidation([url]);
      patch = { ...patch, url };
    }
    const data: Prisma.LinkUpdateInput = {};
    const set = <K extends keyof Link>(field: K, value: Link[K] | undefined, same = (a: Link[K], b: Link[K]) => a === b) => {
      if (value !== undefined && !same(before[field], value)) (data as Record<string, unknown>)[field] = value;
    };
    const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
    set("url", patch.url);
    set("code", patch.alias);
    set("title", patch.title);
    set("notes", patch.notes);
    set("folder", patch.folder);
    set("active", patch.active);
    set("maxClicks", patch.maxClicks);
    set("fallbackUrl", patch.fallbackUrl);
    set("startsOn", patch.startsOn === undefined ? undefined : toDate(patch.startsOn), sameTime);
    set("expiresOn", patch.expiresOn === undefined ? undefined : toDate(patch.expiresOn), sameTime);
    if (passwordHash) data.passwordHash = passwordHash;
    else if (patch.password === null && before.passwordHash !== null) data.passwordHash = null;
    if (patch.targeting !== undefined) {
      const next = normalizeTargeting(patch.targeting);
      if (!sameTargeting(before.targeting, next)) data.targeting = next ?? Prisma.DbNull;
    }
    const tagsChanged = patch.tags !== undefined && (await replaceLinkTags(tx, workspace.id, before.id, patch.tags));
    if (Object.keys(data).length === 0 && !tagsChanged) return { link: before, changed: [], written: false };
    if (data.code !== undefined && isReservedAlias(patch.alias!)) throw ServiceError.aliasTaken(patch.alias!);

    let updated: Link;
    try {
      // Tags are not a Link column: a tags-only edit still stamps updatedAt.
      updated = await tx.link.update({ where: { id: before.id }, data: Object.keys(data).length ? data : { updatedAt: new Date() } });
    } catch (e) {
      throw aliasTakenByIndex(e, patch.alias) ?? e;
    }
    const tagNames = tagsChanged ? ((await tagNamesOf(tx, [before.id])).get(before.id) ?? []) : before.tagNames;
    const after = { ...linkWithHost(updated, before.host), tagNames };
    const changed = changedFields(webhookLink(before), webhookLink(after));
    await emit(workspace, "link.updated", { link: webhookLink(after), changed });
    return { link: after, changed, written: true };
  });
}

/** Deletes one link (link.deleted { link as it was }). Its allowance unit is not given back. */
export async function deleteLink(workspace: LinkWorkspace, ref: LinkRef): Promise<{ id: number; deleted: true; link: LinkWithHost }> {
  const resolved = await resolveRef(workspace, ref);
  return withEvents(async (tx, emit) => {
    const before = await findOwnLink(tx, workspace, resolved, true);
    await tx.link.delete({ where: { id: before.id } });
    await emit(workspace, "link.deleted", { link: webhookLink(before) });
    return { id: before.id, deleted: true as const, link: before };
  });
}

// ---------------------------------------------------------------------------------------------
// List

/** The opaque cursor: the last link's creation time (ms) and id, base64url. */
export function encodeCursor(link: Pick<Link, "createdAt" | "id">): string {
  return Buffer.from(`${link.createdAt.getTime()}.${link.id}`).toString("base64url");
}

export function decodeCursor(cursor: string): { createdAt: Date; id: number } | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return null;
  const m = /^(\d{1,15})\.(\d{1,10})$/.exec(Buffer.from(cursor, "base64url").toString("latin1"));
  if (!m) return null;
  const createdAt = new Date(Number(m[1]));
  const id = Number(m[2]);
  if (Number.isNaN(createdAt.getTime()) || id > 2_147_483_647) return null;
  return { createdAt, id };
}

/**
 * A page of the workspace's links, newest first (createdAt desc, id desc), with keyset pagination:
 * the cursor names the last link seen, so inserts between pages never shift or repeat a page.
 */
export async function listLinks(
  workspace: LinkWorkspace,
  query: ListLinksQuery,
): Promise<{ links: LinkWithHost[]; nextCursor: string | null }> {
  const size = query.size ?? PAGE_DEFAULT;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (after === null) throw linkValidation([{ path: "cursor", message: "is not a cursor from this API" }]);
  const and = await linkFilters(workspace, query);
  if (after) and.push({ OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] });
  const rows = await db().link.findMany({ where: { AND: and }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: size + 1 });
  const hosts = await customHosts(db(), rows.slice(0, size));
  const tags = await tagNamesOf(
    db(),
    rows.slice(0, size).map((l) => l.id),
  );
  const page = rows
    .slice(0, size)
    .map((l) => ({ ...linkWithHost(l, l.domainId === null ? hostOf(l) : hosts.get(l.domainId)!), tagNames: tags.get(l.id) ?? [] }));
  return { links: page, nextCursor: rows.length > size ? encodeCursor(page[page.length - 1]) : null };
}

// ---------------------------------------------------------------------------------------------

/** Link input through one of the schemas of schemas.ts; refusals read "field: problem", as the API lists them. */
export function parseLinkInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseInput(schema, input, { message: joinedIssueTexts });
}
