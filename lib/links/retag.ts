import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { config } from "../config/index.ts";
import { withEvents } from "../events/index.ts";
import { linkTagsSchema, tagKey } from "../tags/schemas.ts";
import { ensureTags } from "../tags/service.ts";
import { tagNamesOf } from "./link-tags.ts";
import { toWebhookLink } from "./serialize.ts";
import type { LinkWorkspace } from "./lookup.ts";

// Adding and removing tags on many links at once (the Links page's bulk bar). Like a PATCH of
// tags on each link: a link whose set changes gets link.updated with changed: [] (the webhook link
// object has no tags); links whose set stays the same are not written.

export const RETAG_MAX_LINKS = 500;

export const retagLinksSchema = z.strictObject({
  ids: z
    .array(z.number().int().positive())
    .min(1, "select at least one link")
    .max(RETAG_MAX_LINKS, `at most ${RETAG_MAX_LINKS} links at a time`),
  add: linkTagsSchema.default([]),
  remove: linkTagsSchema.default([]),
});
export type RetagLinksInput = z.output<typeof retagLinksSchema>;

/** Returns how many links changed. Ids that are not the workspace's are 404 (nothing changes). */
export async function retagLinks(workspace: LinkWorkspace, input: RetagLinksInput): Promise<{ changed: number }> {
  if (input.add.length === 0 && input.remove.length === 0)
    throw ServiceError.validation([{ path: "add", message: "add or remove at least one tag" }], "Add or remove at least one tag.");
  const ids = [...new Set(input.ids)].sort((a, b) => a - b);
  return withEvents(
    async (tx, emit) => {
      // Locked in id order, like every multi-link write, so concurrent edits queue without deadlocks.
      const locked = await tx.$queryRaw<
        { id: number }[]
      >`SELECT "id" FROM "Link" WHERE "id" = ANY(${ids}::int[]) AND "workspaceId" = ${workspace.id}::int ORDER BY "id" FOR UPDATE`;
      if (locked.length !== ids.length) throw ServiceError.notFound("Some of the selected links no longer exist.");
      const adding = await ensureTags(tx, workspace.id, input.add);
      const removeKeys = input.remove.map(tagKey);
      const removing = removeKeys.length
        ? await tx.tag.findMany({ where: { workspaceId: workspace.id, nameKey: { in: removeKeys } }, select: { id: true } })
        : [];
      const before = await tx.linkTag.findMany({ where: { linkId: { in: ids } }, select: { linkId: true, tagId: true } });
      const has = new Set(before.map((r) => `${r.linkId}:${r.tagId}`));
      const addIds = [...adding.values()].map((t) => t.id).filter((id) => !removing.some((r) => r.id === id));
      const removeIds = removing.map((r) => r.id);
      const changedLinks = new Set<number>();
      const toAdd = ids.flatMap((linkId) => addIds.filter((tagId) => !has.has(`${linkId}:${tagId}`)).map((tagId) => ({ linkId, tagId })));
      for (const r of toAdd) changedLinks.add(r.linkId);
      for (const r of before) if (removeIds.includes(r.tagId)) changedLinks.add(r.linkId);
      if (toAdd.length) await tx.linkTag.createMany({ data: toAdd, skipDuplicates: true });
      if (removeIds.length) await tx.linkTag.deleteMany({ where: { linkId: { in: ids }, tagId: { in: removeIds } } });
      const changed = [...changedLinks].sort((a, b) => a - b);
      if (changed.length === 0) return { changed: 0 };
      await tx.link.updateMany({ where: { id: { in: changed } }, data: { updatedAt: new Date() } });
      const links = await tx.link.findMany({
        where: { id: { in: changed } },
        include: { domain: { select: { host: true } } },
        orderBy: { id: "asc" },
      });
      for (const l of links) {
        await emit(workspace, "link.updated", { link: toWebhookLink(l, l.domain?.host ?? config().shortDomain), changed: [] });
      }
      return { changed: changed.length };
    },
    { timeout: 60_000 },
  );
}
