import { z } from "zod";
import type { Link, Prisma } from "../db/generated/client.ts";
import type { Tx } from "../db/client.ts";
import { ServiceError, type Issue } from "../errors.ts";
import { withEvents, type Emit } from "../events/index.ts";
import { toDate } from "./columns.ts";
import { tagNamesOf } from "./link-tags.ts";
import { customHosts, type LinkWorkspace } from "./lookup.ts";
import { featuresRequested, keptDenylistedDestinations, linkValidation, missingFeature, scheduleIssues } from "./rules.ts";
import { updateLinkSchema } from "./schemas.ts";
import { changedFields, hostOf, linkWithHost, webhookLink, type LinkWithHost } from "./serialize.ts";

// The Links page's bulk actions on selected links: delete, move to a folder, activate or
// deactivate, set or clear the expiry. Each call is one transaction over at most BULK_EDIT_MAX
// links of the caller's workspace, and writes what the single services write for each link:
// delete.ts's link.deleted { link as it was }, update.ts's link.updated { link, changed } for a
// link that changed (one that already had the value is not written and sends nothing). The field
// values are the PATCH body's own schemas (updateLinkSchema), and the edit goes through the same
// checks as a PATCH of those fields (plan feature, schedule, denylisted destinations).

/** At most one page of the list (its largest page size). */
export const BULK_EDIT_MAX = 100;

const ids = z
  .array(z.number().int().positive().max(2_147_483_647))
  .min(1, "select at least one link")
  .max(BULK_EDIT_MAX, `at most ${BULK_EDIT_MAX} links at a time`);

export const bulkEditLinksSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("delete"), ids }),
  z.strictObject({ action: z.literal("move"), ids, folder: updateLinkSchema.shape.folder.unwrap() }),
  z.strictObject({ action: z.literal("setActive"), ids, active: z.boolean() }),
  z.strictObject({ action: z.literal("setExpiry"), ids, expiresOn: updateLinkSchema.shape.expiresOn.unwrap() }),
]);
export type BulkEditLinksInput = z.output<typeof bulkEditLinksSchema>;
export type BulkEditAction = BulkEditLinksInput["action"];

/** How many of the selected links the action changed (deleted, moved, ...). */
export type BulkEditResult = { action: BulkEditAction; changed: number };

type Patch = { folder?: string; active?: boolean; expiresOn?: number | null };

function patchOf(input: BulkEditLinksInput): Patch {
  if (input.action === "move") return { folder: input.folder };
  if (input.action === "setActive") return { active: input.active };
  if (input.action === "setExpiry") return { expiresOn: input.expiresOn };
  return {};
}

/**
 * Applies one bulk action to the given links of the workspace. Every id must be one of the
 * workspace's links, else 404 and nothing changes (another workspace's links are never read
 * beyond that check, never written); more than BULK_EDIT_MAX ids is 400 (the schema).
 */
export async function bulkEditLinks(workspace: LinkWorkspace, input: BulkEditLinksInput): Promise<BulkEditResult> {
  const patch = patchOf(input);
  const denied = missingFeature(workspace, featuresRequested(patch));
  if (denied) throw denied;
  const sorted = [...new Set(input.ids)].sort((a, b) => a - b);
  return withEvents(
    async (tx, emit) => {
      const before = await lockOwnLinks(tx, workspace, sorted);
      if (input.action === "delete") return { action: input.action, changed: await deleteAll(tx, emit, workspace, before) };
      return { action: input.action, changed: await patchAll(tx, emit, workspace, before, patch) };
    },
    { timeout: 60_000 },
  );
}

/** The links, locked in id order (as every multi-link write locks, so concurrent edits queue without deadlocks). */
async function lockOwnLinks(tx: Tx, workspace: LinkWorkspace, ids: number[]): Promise<(LinkWithHost & { tagNames: string[] })[]> {
  const locked = await tx.$queryRaw<
    { id: number }[]
  >`SELECT "id" FROM "Link" WHERE "id" = ANY(${ids}::int[]) AND "workspaceId" = ${workspace.id}::int ORDER BY "id" FOR UPDATE`;
  if (locked.length !== ids.length) throw ServiceError.notFound("Some of the selected links no longer exist.");
  const links = await tx.link.findMany({ where: { id: { in: ids }, workspaceId: workspace.id }, orderBy: { id: "asc" } });
  const [hosts, tags] = await Promise.all([customHosts(tx, links), tagNamesOf(tx, ids)]);
  return links.map((l) => ({
    ...linkWithHost(l, l.domainId === null ? hostOf(l) : hosts.get(l.domainId)!),
    tagNames: tags.get(l.id) ?? [],
  }));
}

async function deleteAll(tx: Tx, emit: Emit, workspace: LinkWorkspace, links: LinkWithHost[]): Promise<number> {
  await tx.link.deleteMany({ where: { id: { in: links.map((l) => l.id) }, workspaceId: workspace.id } });
  for (const l of links) await emit(workspace, "link.deleted", { link: webhookLink(l) });
  return links.length;
}

async function patchAll(
  tx: Tx,
  emit: Emit,
  workspace: LinkWorkspace,
  links: (LinkWithHost & { tagNames: string[] })[],
  patch: Patch,
): Promise<number> {
  const issues: Issue[] = [];
  const writes: { link: LinkWithHost & { tagNames: string[] }; data: Prisma.LinkUpdateInput }[] = [];
  for (const link of links) {
    const at = (list: Issue[]) => list.map((i) => ({ ...i, message: `${link.code}: ${i.message}` }));
    issues.push(...at(keptDenylistedDestinations(link, {})));
    if (patch.expiresOn !== undefined)
      issues.push(...at(scheduleIssues({ startsOn: link.startsOn ? Math.floor(link.startsOn.getTime() / 1000) : null, ...patch })));
    const data = changes(link, patch);
    if (Object.keys(data).length) writes.push({ link, data });
  }
  if (issues.length) throw linkValidation(issues);
  for (const { link, data } of writes) {
    const updated = await tx.link.update({ where: { id: link.id }, data });
    const after = { ...linkWithHost(updated, link.host), tagNames: link.tagNames };
    await emit(workspace, "link.updated", { link: webhookLink(after), changed: changedFields(webhookLink(link), webhookLink(after)) });
  }
  return writes.length;
}

/** The columns the patch changes on this link (update.ts's rule: a value equal to the stored one is no change). */
function changes(link: Link, patch: Patch): Prisma.LinkUpdateInput {
  const data: Prisma.LinkUpdateInput = {};
  if (patch.folder !== undefined && patch.folder !== link.folder) data.folder = patch.folder;
  if (patch.active !== undefined && patch.active !== link.active) data.active = patch.active;
  if (patch.expiresOn !== undefined) {
    const next = toDate(patch.expiresOn);
    if ((next?.getTime() ?? null) !== (link.expiresOn?.getTime() ?? null)) data.expiresOn = next;
  }
  return data;
}
