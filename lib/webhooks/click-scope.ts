import { z } from "zod";
import type { DbOrTx } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import { ALL_LINKS, type ClickScopeColumns } from "../events/click-scope.ts";
import { tagKey } from "../tags/schemas.ts";

export { ALL_LINKS };

// Which links' clicks an endpoint's link.clicked subscription covers: all links of the workspace,
// some folders (each with its subfolders), some tags (links with any of them, as tagged when
// clicked) or some links. Stored as three columns of WebhookEndpoint (lib/events/click-scope.ts,
// which also decides whether a click is in scope); tags and links are kept by id, so a renamed tag
// or an edited link stays in scope. Here: names to ids and back.

const names = (what: string) =>
  z
    .array(z.string().trim().min(1, `Name a ${what}.`).max(200, `Use ${what} names of at most 200 characters.`))
    .max(100, `Choose at most 100 ${what}s.`);

const folderName = (v: string) => v.trim().replace(/^\/+|\/+$/g, "");

/** The input: none (or all empty) for all links, else exactly one of the three lists. */
export const clickScopeSchema = z
  .strictObject({ folders: names("folder").optional(), tags: names("tag").optional(), links: names("link").optional() })
  .superRefine((v, ctx) => {
    const set = [v.folders, v.tags, v.links].filter((l) => l && l.length > 0).length;
    if (set > 1) ctx.addIssue({ code: "custom", message: "Choose the clicks of some folders, some tags or some links: one of them." });
    if (v.folders?.some((f) => folderName(f) === ""))
      ctx.addIssue({ code: "custom", message: "Name a folder (the top level is all links)." });
  });
export type ClickScopeInput = z.infer<typeof clickScopeSchema>;

/** What an endpoint view shows: names, as the workspace knows them now. */
export type ClickScopeView =
  { kind: "all" } | { kind: "folders"; folders: string[] } | { kind: "tags"; tags: string[] } | { kind: "links"; links: string[] };

/** Names to stored ids; an unknown tag or link code is a validation error naming it. */
export async function resolveClickScope(tx: DbOrTx, workspaceId: number, input: ClickScopeInput | undefined): Promise<ClickScopeColumns> {
  if (input?.folders?.length) return { ...ALL_LINKS, clickFolders: [...new Set(input.folders.map(folderName))] };
  if (input?.tags?.length) {
    const keys = [...new Set(input.tags.map(tagKey))];
    const tags = await tx.tag.findMany({ where: { workspaceId, nameKey: { in: keys } }, select: { id: true, nameKey: true } });
    const missing = keys.filter((k) => !tags.some((t) => t.nameKey === k));
    if (missing.length) throw ServiceError.validation(`No tag named ${missing.join(", ")} in this workspace.`);
    return { ...ALL_LINKS, clickTagIds: tags.map((t) => t.id).sort((a, b) => a - b) };
  }
  if (input?.links?.length) {
    const codes = [...new Set(input.links.map((c) => c.trim()))];
    const links = await tx.link.findMany({ where: { workspaceId, code: { in: codes } }, select: { id: true, code: true } });
    const missing = codes.filter((c) => !links.some((l) => l.code === c));
    if (missing.length) throw ServiceError.validation(`No link with the code ${missing.join(", ")} in this workspace.`);
    return { ...ALL_LINKS, clickLinkIds: links.map((l) => l.id).sort((a, b) => a - b) };
  }
  return ALL_LINKS;
}

/** Stored ids back to names (a deleted tag or link is simply left out). */
export async function describeClickScope(tx: DbOrTx, scope: ClickScopeColumns): Promise<ClickScopeView> {
  if (scope.clickFolders.length) return { kind: "folders", folders: scope.clickFolders };
  if (scope.clickTagIds.length) {
    const tags = await tx.tag.findMany({ where: { id: { in: scope.clickTagIds } }, select: { name: true }, orderBy: { nameKey: "asc" } });
    return { kind: "tags", tags: tags.map((t) => t.name) };
  }
  if (scope.clickLinkIds.length) {
    const links = await tx.link.findMany({ where: { id: { in: scope.clickLinkIds } }, select: { code: true }, orderBy: { code: "asc" } });
    return { kind: "links", links: links.map((l) => l.code) };
  }
  return { kind: "all" };
}
