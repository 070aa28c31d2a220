// The scope of an endpoint's link.clicked subscription as stored (WebhookEndpoint's three click
// columns, at most one set; all three empty: every link of the workspace), and the one rule of
// whether a click is in it: part of the subscription rule (subscription.ts). lib/webhooks
// (click-scope.ts) turns names into these ids and back.

export type ClickScopeColumns = { clickFolders: string[]; clickTagIds: number[]; clickLinkIds: number[] };
export const ALL_LINKS: ClickScopeColumns = { clickFolders: [], clickTagIds: [], clickLinkIds: [] };

/** A clicked link as the scope reads it: its id, and its folder and tag ids now. */
export type ScopedLink = { id: number; folder: string; tagIds: number[] };

/** Whether a click on a link is in the scope; a folder includes its subfolders. */
export function inClickScope(scope: ClickScopeColumns, link: ScopedLink): boolean {
  if (scope.clickFolders.length) return scope.clickFolders.some((f) => link.folder === f || link.folder.startsWith(f + "/"));
  if (scope.clickTagIds.length) return link.tagIds.some((t) => scope.clickTagIds.includes(t));
  if (scope.clickLinkIds.length) return scope.clickLinkIds.includes(link.id);
  return true;
}
