import { tagKey } from "./schemas.ts";

// ensureTags (service.ts) as part of a larger statement: the links' create writes a link, its tags
// and its LinkTag rows in one statement (lib/links/create-sql.ts), as the rate window is part of
// the links' reads (lib/ratelimit liveKeyRateCte). The CTE `tags` ("id", "name", "nameKey") is the
// workspace's tags with the wanted keys; missing ones are created (gray). A tag that a concurrent
// create inserted after this statement's snapshot is invisible to it, so the insert of a missing
// tag ends in ON CONFLICT DO UPDATE (a write of the same value), which returns that tag's row.

/**
 * The CTEs ending in `tags`; `p(1)` is the workspace id, `p(2)` and `p(3)` the names and their keys
 * (tagArgs), so the text can follow the statement's own parameters. `from` (", go") joins a relation
 * whose emptiness ensures nothing.
 */
export function tagsCte(p: (i: number) => string, from = ""): string {
  return `tag_wanted as (select w.* from unnest(${p(2)}::text[], ${p(3)}::text[]) as w("name", "nameKey") ${from}),
  tag_found as (
    select t."id", t."name", t."nameKey" from "Tag" t join tag_wanted w on w."nameKey" = t."nameKey" where t."workspaceId" = ${p(1)}::int
  ), tag_made as (
    insert into "Tag" as t ("workspaceId", "name", "nameKey")
    select ${p(1)}::int, w."name", w."nameKey" from tag_wanted w where not exists (select 1 from tag_found f where f."nameKey" = w."nameKey")
    on conflict ("workspaceId", "nameKey") do update set "nameKey" = t."nameKey"
    returning t."id", t."name", t."nameKey"
  ), tags as (select * from tag_found union all select * from tag_made)`;
}

/** The names and keys of tagsCte: one name per key, the first given (as ensureTags names a new tag). */
export function tagArgs(names: string[]): [names: string[], keys: string[]] {
  const byKey = new Map<string, string>();
  for (const n of names) if (!byKey.has(tagKey(n))) byKey.set(tagKey(n), n);
  return [[...byKey.values()], [...byKey.keys()]];
}
