import type { DbOrTx, Tx } from "../db/client.ts";
import { byTagName, ensureTags } from "../tags/service.ts";

// The tags of links (LinkTag rows), inside the link service's transactions. Tags are named by the
// caller; missing ones are created (lib/tags ensureTags). The API shows a link's tags as names
// sorted ignoring case.

/** Tag names of each link, sorted ignoring case (links without tags are absent from the map). */
export async function tagNamesOf(client: DbOrTx, linkIds: number[]): Promise<Map<number, string[]>> {
  if (linkIds.length === 0) return new Map();
  const rows = await client.linkTag.findMany({
    where: { linkId: { in: linkIds } },
    select: { linkId: true, tag: { select: { name: true } } },
  });
  const out = new Map<number, { name: string }[]>();
  for (const r of rows) out.set(r.linkId, [...(out.get(r.linkId) ?? []), r.tag]);
  return new Map([...out].map(([id, tags]) => [id, tags.sort(byTagName).map((t) => t.name)]));
}

/** Sets a link's tags to exactly `names` ([] clears). True when the set changed. */
export async function replaceLinkTags(tx: Tx, workspaceId: number, linkId: number, names: string[]): Promise<boolean> {
  const tags = await ensureTags(tx, workspaceId, names);
  const wanted = new Set([...tags.values()].map((t) => t.id));
  const current = new Set((await tx.linkTag.findMany({ where: { linkId }, select: { tagId: true } })).map((r) => r.tagId));
  const add = [...wanted].filter((id) => !current.has(id));
  const remove = [...current].filter((id) => !wanted.has(id));
  if (remove.length) await tx.linkTag.deleteMany({ where: { linkId, tagId: { in: remove } } });
  if (add.length) await tx.linkTag.createMany({ data: add.map((tagId) => ({ linkId, tagId })), skipDuplicates: true });
  return add.length > 0 || remove.length > 0;
}
