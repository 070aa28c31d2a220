import { hashPassword } from "../auth/password.ts";
import { db } from "../db/client.ts";
import { Prisma, type Link } from "../db/generated/client.ts";
import { ServiceError } from "../errors.ts";
import { withEvents } from "../events/index.ts";
import { mergedUrl, normalizeTargeting, sameJson, sameTargeting, toDate } from "./columns.ts";
import { replaceLinkTags, tagNamesOf } from "./link-tags.ts";
import { applyRouting } from "./routing.ts";
import { findOwnLink, resolveRef, type LinkRef, type LinkWorkspace, type ResolvedRef } from "./lookup.ts";
import {
  featuresRequested,
  keptDenylistedDestinations,
  linkValidation,
  missingFeature,
  refusedDestinations,
  scheduleIssues,
} from "./rules.ts";
import type { UpdateLinkInput } from "./schemas.ts";
import { changedFields, linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";
import { aliasTakenByIndex, isReservedAlias, refuseTakenAlias } from "./short-code.ts";

// Editing one link (PATCH /api/v1/links/{code}, the link page): checks in the order of docs/api.md's
// error table, then one transaction that writes the link and its link.updated event.

export type UpdateResult = {
  link: LinkWithHost;
  /** names of webhook link fields that changed ([] when only targeting, routing or the password did) */
  changed: string[];
  /** false when the edit changed nothing: no write, no event */
  written: boolean;
};

/** The cheap refusals of an edit (404, 409 ambiguous_code, 409 alias_taken), before anything slow. */
async function precheckUpdate(workspace: LinkWorkspace, ref: ResolvedRef, alias: string | undefined): Promise<void> {
  const link = await findOwnLink(db(), workspace, ref);
  if (alias === undefined || alias === link.code) return;
  await refuseTakenAlias(link.domainKey, alias);
}

/**
 * Edits one link (link.updated { link, changed }). An edit that changes nothing writes nothing and
 * sends no event; one that changes only settings outside the link object sends changed: [].
 */
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
  const passwordHash = patch.password ? await hashPassword(patch.password, "bulk") : undefined;

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
    const routing = applyRouting(before.routing, patch);
    if (!sameJson(before.routing, routing)) data.routing = (routing as Prisma.InputJsonObject | null) ?? Prisma.DbNull;
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
