import { joinedIssueTexts, ServiceError } from "../errors.ts";
import { db, uniqueViolation, type DbOrTx } from "../db/client.ts";
import type { Tag, Workspace } from "../db/generated/client.ts";
import { tagKey, type ApiTag, type CreateTagInput, type TagColor, type UpdateTagInput } from "./schemas.ts";

// Tags of a workspace. Names are unique ignoring case, enforced by the unique index on
// (workspaceId, nameKey): a duplicate found by the database (also under concurrent creates) is a
// 400 validation error. Deleting a tag removes it from its links (LinkTag rows cascade), never the links.

type TagWorkspace = Pick<Workspace, "id">;

export function toApiTag(tag: Tag): ApiTag {
  return { id: tag.id, name: tag.name, color: tag.color as TagColor, createdOn: Math.floor(tag.createdAt.getTime() / 1000) };
}

const duplicate = (name: string) => {
  const issues = [{ path: "name", message: `a tag named "${name}" already exists in this workspace (names are compared ignoring case)` }];
  return ServiceError.validation(issues, joinedIssueTexts(issues));
};

/** The order tags are shown in: by name ignoring case. */
export function byTagName(a: { name: string }, b: { name: string }): number {
  const ka = tagKey(a.name);
  const kb = tagKey(b.name);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export async function listTags(workspace: TagWorkspace, client: DbOrTx = db()): Promise<Tag[]> {
  return client.tag.findMany({ where: { workspaceId: workspace.id }, orderBy: [{ nameKey: "asc" }, { id: "asc" }] });
}

/** Tag counts per tag id (links carrying each tag), for the app's tag list. */
export async function tagLinkCounts(workspace: TagWorkspace): Promise<Map<number, number>> {
  const rows = await db().linkTag.groupBy({ by: ["tagId"], where: { tag: { workspaceId: workspace.id } }, _count: { _all: true } });
  return new Map(rows.map((r) => [r.tagId, r._count._all]));
}

export async function createTag(workspace: TagWorkspace, input: CreateTagInput): Promise<Tag> {
  try {
    return await db().tag.create({
      data: { workspaceId: workspace.id, name: input.name, nameKey: tagKey(input.name), color: input.color ?? "gray" },
    });
  } catch (e) {
    if (uniqueViolation(e)) throw duplicate(input.name);
    throw e;
  }
}

/** The workspace's tag by id; another workspace's tag or an id that is not a number is 404. */
export async function getTag(workspace: TagWorkspace, id: string | number, client: DbOrTx = db()): Promise<Tag> {
  const n = typeof id === "number" ? id : /^\d{1,10}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n > 2_147_483_647) throw ServiceError.notFound();
  const tag = await client.tag.findFirst({ where: { id: n, workspaceId: workspace.id } });
  if (!tag) throw ServiceError.notFound();
  return tag;
}

/** Renames or recolours a tag. Renaming to the name of another tag (ignoring case) is 400. */
export async function updateTag(workspace: TagWorkspace, id: string | number, input: UpdateTagInput): Promise<Tag> {
  const tag = await getTag(workspace, id);
  const data: { name?: string; nameKey?: string; color?: string } = {};
  if (input.name !== undefined && input.name !== tag.name) Object.assign(data, { name: input.name, nameKey: tagKey(input.name) });
  if (input.color !== undefined && input.color !== tag.color) data.color = input.color;
  if (Object.keys(data).length === 0) return tag;
  try {
    // updateMany with the workspace in the filter: a tag deleted meanwhile is a 404, not a 500.
    const { count } = await db().tag.updateMany({ where: { id: tag.id, workspaceId: workspace.id }, data });
    if (count === 0) throw ServiceError.notFound();
  } catch (e) {
    if (uniqueViolation(e)) throw duplicate(input.name!);
    throw e;
  }
  return getTag(workspace, tag.id);
}

export async function deleteTag(workspace: TagWorkspace, id: string | number): Promise<{ id: number; deleted: true }> {
  const tag = await getTag(workspace, id);
  const { count } = await db().tag.deleteMany({ where: { id: tag.id, workspaceId: workspace.id } });
  if (count === 0) throw ServiceError.notFound();
  return { id: tag.id, deleted: true };
}

/**
 * The workspace's tags with these names (ignoring case), creating the missing ones (gray) in the
 * caller's transaction. INSERT .. ON CONFLICT DO NOTHING: two requests naming the same new tag at
 * once both end up with the one tag.
 */
export async function ensureTags(client: DbOrTx, workspaceId: number, names: string[]): Promise<Map<string, Tag>> {
  const byKey = new Map<string, string>();
  for (const n of names) if (!byKey.has(tagKey(n))) byKey.set(tagKey(n), n);
  if (byKey.size === 0) return new Map();
  const keys = [...byKey.keys()];
  const existing = await client.tag.findMany({ where: { workspaceId, nameKey: { in: keys } } });
  const missing = keys.filter((k) => !existing.some((t) => t.nameKey === k));
  if (missing.length) {
    await client.tag.createMany({ data: missing.map((k) => ({ workspaceId, name: byKey.get(k)!, nameKey: k })), skipDuplicates: true });
  }
  const all = missing.length ? await client.tag.findMany({ where: { workspaceId, nameKey: { in: keys } } }) : existing;
  return new Map(all.map((t) => [t.nameKey, t]));
}
