"use server";
import { revalidatePath } from "next/cache";
import {
  bulkCreateLinks,
  createLink,
  createLinkSchema,
  deleteLink,
  parseLinkInput,
  listLinks,
  listLinksQuerySchema,
  toApiLink,
  updateLink,
  updateLinkSchema,
  type ApiLink,
} from "@/lib/links";
import { errorBody, type ErrorBody } from "@/lib/api/error-body";
import { actionFailure, ok, type ActionResult } from "@/lib/actions/result";
import { requireMember } from "../access";
import { linkById } from "./data";

// The links pages' server actions: parse with the API's own zod schemas, call the same lib/links
// services as /api/v1, so the app and the API always agree (rules, errors, events).

const LINK_FIELDS = ["url", "alias", "domain", "title", "notes", "folder", "active", "startsOn", "expiresOn", "maxClicks", "fallbackUrl", "password", "targeting", "tags", "utm"];

const parse = parseLinkInput;

export async function createLinkAction(slug: string, input: unknown): Promise<ActionResult<{ id: number; short: string }>> {
  const { workspace } = await requireMember(slug);
  try {
    const link = await createLink(workspace, parse(createLinkSchema, input));
    revalidatePath(`/w/${slug}/links`);
    return ok({ id: link.id, short: toApiLink(link, link.host).short });
  } catch (e) {
    return actionFailure(e, LINK_FIELDS);
  }
}

export async function updateLinkAction(slug: string, id: number, patch: unknown): Promise<ActionResult<{ id: number; changed: boolean }>> {
  const { workspace } = await requireMember(slug);
  const current = await linkById(workspace.id, id);
  if (!current) return { ok: false, code: "not_found", error: "This link no longer exists." };
  try {
    const r = await updateLink(workspace, current.code, { domain: current.domain }, parse(updateLinkSchema, patch));
    revalidatePath(`/w/${slug}/links`, "layout");
    return ok({ id: r.link.id, changed: r.written });
  } catch (e) {
    return actionFailure(e, LINK_FIELDS);
  }
}

export async function deleteLinkAction(slug: string, id: number): Promise<ActionResult<{ id: number; short: string }>> {
  const { workspace } = await requireMember(slug);
  const current = await linkById(workspace.id, id);
  if (!current) return { ok: false, code: "not_found", error: "This link no longer exists." };
  try {
    await deleteLink(workspace, current.code, { domain: current.domain });
    revalidatePath(`/w/${slug}/links`);
    return ok({ id, short: current.short });
  } catch (e) {
    return actionFailure(e, []);
  }
}

export type LinksPage = { links: ApiLink[]; nextCursor: string | null };

export async function listLinksAction(slug: string, query: { q?: string; folder?: string; tag?: string[]; cursor?: string; size?: number }): Promise<ActionResult<LinksPage>> {
  const { workspace } = await requireMember(slug);
  try {
    const parsed = parse(listLinksQuerySchema, {
      ...(query.q ? { q: query.q } : {}),
      ...(query.folder ? { folder: query.folder } : {}),
      ...(query.tag?.length ? { tag: query.tag } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
      size: String(query.size ?? 25),
    });
    const page = await listLinks(workspace, parsed);
    return ok({ links: page.links.map((l) => toApiLink(l, l.host)), nextCursor: page.nextCursor });
  } catch (e) {
    return actionFailure(e, []);
  }
}

export type ImportRowResult = { row: number; status: number; short?: string; id?: number; error?: ErrorBody };

/**
 * One chunk (at most 100 rows) of a CSV import, through the same bulk service as
 * POST /api/v1/links/bulk. `batch` numbers the chunk within the whole import, so the chunk's
 * link.bulk_created event says which part of the import it is (1 of 3, 2 of 3, ...).
 */
export async function importChunkAction(
  slug: string,
  rows: { row: number; body: unknown }[],
  batch: { index: number; count: number },
): Promise<ActionResult<ImportRowResult[]>> {
  const { workspace } = await requireMember(slug);
  if (!Array.isArray(rows) || rows.length === 0 || rows.length > 100) return { ok: false, code: "validation", error: "Send 1 to 100 rows at a time." };
  if (!Number.isInteger(batch?.index) || !Number.isInteger(batch?.count) || batch.index < 1 || batch.index > batch.count) {
    return { ok: false, code: "validation", error: "Bad batch numbers." };
  }
  try {
    const results = await bulkCreateLinks(workspace, rows.map((r) => r.body), { batch });
    revalidatePath(`/w/${slug}/links`);
    return ok(
      results.map((r, i) =>
        r.status === 201 ? { row: rows[i].row, status: 201, id: r.link.id, short: toApiLink(r.link, r.link.host).short } : { row: rows[i].row, status: r.status, error: errorBody(r.error) },
      ),
    );
  } catch (e) {
    return actionFailure(e, []);
  }
}
