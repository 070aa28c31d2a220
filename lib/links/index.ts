// Links: the one place of link rules (API, app pages and admin CLI all call these). Each use case
// is one transaction (withEvents) that also records its webhook event. Inputs are already parsed
// by the schemas in schemas.ts; every refusal is a ServiceError, raised in the order of the
// docs/api.md's error table: 400 validation -> 403 feature -> 403 quota -> 404 / 409.
export * from "./schemas.ts";
export * from "./serialize.ts";
export { createLink, createLinkCountingRate, bulkCreateLinks, type BulkRowResult, type BulkOptions } from "./create.ts";
export { getLink, getLinkCountingRate, type LinkWorkspace, type LinkRef } from "./lookup.ts";
export { updateLink, type UpdateResult } from "./update.ts";
export { deleteLink } from "./delete.ts";
export { listLinks, listLinksCountingRate, encodeCursor, decodeCursor, type LinksPage } from "./list.ts";
export {
  listLinksPage,
  linksPageQuerySchema,
  LIST_SORTS,
  LIST_PAGE_SIZES,
  LIST_COUNT_CAP,
  type LinksPageQuery,
  type LinksListPage,
  type ListSort,
} from "./list-page.ts";
export { bulkEditLinks, bulkEditLinksSchema, BULK_EDIT_MAX, type BulkEditLinksInput, type BulkEditResult } from "./bulk-edit.ts";
export { reserveLinkAllowance } from "./allowance.ts";
export { spendLinkCreateBudget } from "./app-budget.ts";
export { exportLinksCsv, exportBatches, exportFileName, EXPORT_BATCH } from "./export.ts";
export { mergeUtm, utmOf, utmSchema, UTM_FIELDS, type Utm, type UtmField } from "./utm.ts";
export { tagNamesOf } from "./link-tags.ts";
export { retagLinks, retagLinksSchema, RETAG_MAX_LINKS, type RetagLinksInput } from "./retag.ts";
export { parseLinkInput, isDenylisted, denylistedDestinations, isServiceHost } from "./rules.ts";
export { generateCode, isReservedAlias } from "./short-code.ts";
export {
  codeAvailability,
  codeAvailabilitySchema,
  suggestFreeCode,
  suggestCodeSchema,
  type CodeAvailability,
} from "./code-availability.ts";
