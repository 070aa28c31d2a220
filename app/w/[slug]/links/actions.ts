"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { errorBody, type ErrorBody } from "@/lib/api/error-body";
import { idSchema } from "@/lib/ids";
import { linkTrends, TREND_MAX_LINKS } from "@/lib/analytics/reports/link-trends";
import { listedPage, ROW_FIELDS } from "./listed-link";
import {
  bulkCreateLinks,
  bulkEditLinks,
  bulkEditLinksSchema,
  linksPageQuerySchema,
  listLinksPage,
  createLink,
  createLinkSchema,
  deleteLink,
  parseLinkInput,
  spendLinkCreateBudget,
  toApiLink,
  updateLink,
  updateLinkSchema,
  type ApiLink,
} from "@/lib/links";

// The links pages' server actions: parse with the API's own zod schemas, call the same lib/links
// services as /api/v1, so the app and the API always agree (rules, errors, events). Actions that
// create links first spend the user's budget (spendLinkCreateBudget), as API calls spend a key's.

// The link form shows errors beside each field of a link body (create and update take the same names).
const LINK_FIELDS = createLinkSchema.keyof().options;

export const createLinkAction = workspaceAction(
  { permission: "links.write", schema: createLinkSchema, revalidate: "/links", fields: LINK_FIELDS },
  async ({ workspace, userId }, input) => {
    await spendLinkCreateBudget(userId, workspace);
    const link = await createLink(workspace, input);
    return { id: link.id, short: toApiLink(link, link.host).short };
  },
);

export const updateLinkAction = workspaceAction(
  {
    permission: "links.write",
    schema: z.object({ id: idSchema, patch: z.unknown() }),
    revalidate: { path: "/links", layout: true },
    fields: LINK_FIELDS,
  },
  async ({ workspace }, { id, patch }) => {
    const r = await updateLink(workspace, { id }, parseLinkInput(updateLinkSchema, patch));
    return { id: r.link.id, changed: r.written };
  },
);

export const deleteLinkAction = workspaceAction(
  { permission: "links.write", schema: z.object({ id: idSchema }), revalidate: "/links", fields: [] },
  async ({ workspace }, { id }) => {
    const r = await deleteLink(workspace, { id });
    return { id, short: toApiLink(r.link, r.link.host).short };
  },
);

/** Clicks per day over the last two weeks of the links shown (the list's sparklines). */
export const linkTrendsAction = workspaceAction(
  { permission: "workspace.view", schema: z.object({ ids: z.array(idSchema).max(TREND_MAX_LINKS) }), fields: [] },
  ({ workspace }, { ids }) => linkTrends(workspace, ids),
);

/**
 * A row of the Links page: the fields of the API link object a row shows (listed-link.ts ROW_FIELDS;
 * the link's page has the rest) and the last click (unix seconds, null: never).
 */
export type ListedLink = Pick<ApiLink, (typeof ROW_FIELDS)[number]> & { lastClickedOn: number | null };
export type LinksListPage = { links: ListedLink[]; total: number; capped: boolean; page: number; size: number };

/** A numbered, sorted page of the Links page (lib/links/list-page.ts). */
export const listLinksPageAction = workspaceAction(
  { permission: "workspace.view", schema: z.unknown(), fields: [] },
  async ({ workspace }, input): Promise<LinksListPage> => {
    return listedPage(await listLinksPage(workspace, parseLinkInput(linksPageQuerySchema, input)));
  },
);

/** The bulk bar's delete, move, activate/deactivate and expiry (lib/links/bulk-edit.ts). */
export const bulkEditLinksAction = workspaceAction(
  { permission: "links.write", schema: z.unknown(), revalidate: { path: "/links", layout: true }, fields: [] },
  ({ workspace }, input) => bulkEditLinks(workspace, parseLinkInput(bulkEditLinksSchema, input)),
);

export type ImportRowResult = { row: number; status: number; short?: string; id?: number; error?: ErrorBody };

const ROWS = "Send 1 to 100 rows at a time.";
const BATCH = "Bad batch numbers.";
const batchNumber = z.number({ message: BATCH }).int(BATCH);
const importChunk = z.object({
  rows: z
    .array(z.object({ row: z.number().int(), body: z.unknown() }), { message: ROWS })
    .min(1, ROWS)
    .max(100, ROWS),
  batch: z.object({ index: batchNumber, count: batchNumber }, { message: BATCH }).refine((b) => b.index >= 1 && b.index <= b.count, BATCH),
});

/**
 * One chunk (at most 100 rows) of a CSV import, through the same bulk service as
 * POST /api/v1/links/bulk. `batch` numbers the chunk within the whole import, so the chunk's
 * link.bulk_created event says which part of the import it is (1 of 3, 2 of 3, ...).
 */
export const importChunkAction = workspaceAction(
  { permission: "links.write", schema: importChunk, revalidate: "/links", fields: [] },
  async ({ workspace, userId }, { rows, batch }): Promise<ImportRowResult[]> => {
    // One chunk is one request of the user's budget (lib/links/app-budget.ts).
    await spendLinkCreateBudget(userId, workspace);
    const results = await bulkCreateLinks(
      workspace,
      rows.map((r) => r.body),
      { batch },
    );
    return results.map((r, i) =>
      r.status === 201
        ? { row: rows[i].row, status: 201, id: r.link.id, short: toApiLink(r.link, r.link.host).short }
        : { row: rows[i].row, status: r.status, error: errorBody(r.error) },
    );
  },
);
