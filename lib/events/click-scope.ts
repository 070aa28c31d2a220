// The scope of an endpoint's link.clicked subscription as stored (WebhookEndpoint's three click
// columns, at most one set; all three empty: every link of the workspace), and the one rule of
// whether a click is in it, in two forms kept side by side: inClickScope (JavaScript) and
// clickScopeCondition (SQL, the link.clicked cursor reader's read). Part of the subscription rule
// (subscription.ts). lib/webhooks (click-scope.ts) turns names into these ids and back.

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

/**
 * The rule as a SQL condition on a "Link" row aliased `link` (its folder and its "LinkTag" rows now),
 * the scope's three columns in the statement's parameters number `at`, `at + 1` and `at + 2`
 * (clickScopeValues). Folders compare with starts_with, never LIKE: a folder name may hold % or _.
 * tests/integration/events-click-scope-sql.test.ts checks that it agrees with inClickScope.
 */
export function clickScopeCondition(link: string, at: number): string {
  const [folders, tagIds, linkIds] = [`$${at}::text[]`, `$${at + 1}::int[]`, `$${at + 2}::int[]`];
  return `(case
            when cardinality(${folders}) > 0 then exists (
              select 1 from unnest(${folders}) f where ${link}."folder" = f or starts_with(${link}."folder", f || '/'))
            when cardinality(${tagIds}) > 0 then exists (
              select 1 from "LinkTag" t where t."linkId" = ${link}."id" and t."tagId" = any(${tagIds}))
            when cardinality(${linkIds}) > 0 then ${link}."id" = any(${linkIds})
            else true end)`;
}

/** The values of clickScopeCondition's three parameters, in order. */
export function clickScopeValues(scope: ClickScopeColumns): [string[], number[], number[]] {
  return [scope.clickFolders, scope.clickTagIds, scope.clickLinkIds];
}
