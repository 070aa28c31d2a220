import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { db, uniqueViolation } from "../db/client.ts";
import type { Workspace } from "../db/generated/client.ts";
import { joinedIssueTexts, parseInput, ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { tagKey } from "../tags/schemas.ts";
import { pageParams, type PageParams } from "./reports/report.ts";
import { analyticsExportQuerySchema } from "./reports/schemas.ts";

// Saved Analytics views (a name for a set of page parameters: filters and range) and their
// read-only share links. A share link is a random token shown once (like an API key); only its
// SHA-256 is stored, so a leaked database does not open the shared pages. Sharing again replaces
// the token (the old URL stops working); revoking clears it. Bounds: MAX_VIEWS per workspace (the
// workspace row is locked for the count and the insert, so parallel saves cannot pass it), a name
// of at most NAME_MAX characters, parameters that the analytics query schema accepts (each of its
// own bounded size; the range is cut to the plan's retention whenever the view is shown).

export const MAX_VIEWS = 50;
export const NAME_MAX = 60;
/** Share tokens: 32 characters of base64url (24 random bytes). */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

export const saveViewSchema = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(NAME_MAX, `must be at most ${NAME_MAX} characters`),
  params: z.record(z.string(), z.string()),
});
export type SaveViewInput = z.input<typeof saveViewSchema>;

export type SavedView = { id: number; name: string; params: PageParams; shared: boolean; sharedAt: Date | null; createdAt: Date };

type Row = { id: number; name: string; params: unknown; shareTokenHash: string | null; sharedAt: Date | null; createdAt: Date };
const toView = (r: Row): SavedView => ({
  id: r.id,
  name: r.name,
  params: r.params as PageParams,
  shared: r.shareTokenHash !== null,
  sharedAt: r.sharedAt,
  createdAt: r.createdAt,
});

export function hashShareToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The view's parameters: only those the page knows, and only when the analytics schema accepts them. */
function viewParams(raw: Record<string, string>): PageParams {
  const params = pageParams(raw);
  const parsed = analyticsExportQuerySchema.safeParse(params);
  if (!parsed.success)
    throw ServiceError.validation(parsed.error.issues.map((i) => ({ path: `params.${i.path.join(".")}`, message: i.message })));
  return params;
}

export async function listSavedViews(workspace: Pick<Workspace, "id">): Promise<SavedView[]> {
  const rows = await db().savedAnalyticsView.findMany({
    where: { workspaceId: workspace.id },
    orderBy: [{ nameKey: "asc" }, { id: "asc" }],
  });
  return rows.map(toView);
}

export async function saveView(workspace: Pick<Workspace, "id">, createdById: number | null, input: SaveViewInput): Promise<SavedView> {
  const { name, params: raw } = parseInput(saveViewSchema, input);
  const params = viewParams(raw);
  try {
    return await db().$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: number }[]>`SELECT "id" FROM "Workspace" WHERE "id" = ${workspace.id}::int FOR UPDATE`;
      if (locked.length === 0) throw ServiceError.notFound("Workspace not found.");
      const count = await tx.savedAnalyticsView.count({ where: { workspaceId: workspace.id } });
      if (count >= MAX_VIEWS) throw ServiceError.limit(`A workspace keeps at most ${MAX_VIEWS} saved views. Delete one to save another.`);
      const row = await tx.savedAnalyticsView.create({
        data: { workspaceId: workspace.id, name, nameKey: tagKey(name), params, createdById },
      });
      return toView(row);
    });
  } catch (e) {
    if (uniqueViolation(e)) {
      const issues = [{ path: "name", message: `a view named "${name}" already exists in this workspace` }];
      throw ServiceError.validation(issues, joinedIssueTexts(issues));
    }
    throw e;
  }
}

async function ownView(workspace: Pick<Workspace, "id">, id: number): Promise<Row> {
  const row = isId(id) ? await db().savedAnalyticsView.findFirst({ where: { id, workspaceId: workspace.id } }) : null;
  if (!row) throw ServiceError.notFound("This view no longer exists.");
  return row;
}

export async function deleteView(workspace: Pick<Workspace, "id">, id: number): Promise<{ id: number; deleted: true }> {
  await ownView(workspace, id);
  await db().savedAnalyticsView.deleteMany({ where: { id, workspaceId: workspace.id } });
  return { id, deleted: true };
}

/** A new share token for the view (the previous one, if any, stops working): returned this once. */
export async function shareView(workspace: Pick<Workspace, "id">, id: number): Promise<{ id: number; token: string }> {
  await ownView(workspace, id);
  const token = randomBytes(24).toString("base64url");
  const { count } = await db().savedAnalyticsView.updateMany({
    where: { id, workspaceId: workspace.id },
    data: { shareTokenHash: hashShareToken(token), sharedAt: new Date() },
  });
  if (count === 0) throw ServiceError.notFound("This view no longer exists.");
  return { id, token };
}

/** Ends the view's share link (its URL answers 404 from now on); idempotent. */
export async function revokeShare(workspace: Pick<Workspace, "id">, id: number): Promise<{ id: number; revoked: true }> {
  await ownView(workspace, id);
  await db().savedAnalyticsView.updateMany({ where: { id, workspaceId: workspace.id }, data: { shareTokenHash: null, sharedAt: null } });
  return { id, revoked: true };
}

/** The shared view of a token and its workspace (active only); null for a malformed, unknown or revoked token. */
export async function findSharedView(token: string): Promise<{ view: SavedView; workspace: Workspace } | null> {
  if (typeof token !== "string" || !TOKEN.test(token)) return null;
  const row = await db().savedAnalyticsView.findUnique({ where: { shareTokenHash: hashShareToken(token) }, include: { workspace: true } });
  if (!row || !row.workspace.active) return null;
  return { view: toView(row), workspace: row.workspace };
}
