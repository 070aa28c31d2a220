// Links: the one place of link rules (API, app pages and admin CLI all call these).
export * from "./schemas.ts";
export * from "./serialize.ts";
export {
  createLink,
  bulkCreateLinks,
  getLink,
  updateLink,
  deleteLink,
  listLinks,
  encodeCursor,
  decodeCursor,
  parseLinkInput,
  type BulkRowResult,
  type BulkOptions,
  type LinkWorkspace,
  type UpdateResult,
  type LinkRef,
} from "./service.ts";
export { reserveLinkAllowance, monthOf } from "./allowance.ts";
export { spendLinkCreateBudget } from "./app-budget.ts";
export { exportLinksCsv, exportBatches, exportFileName, EXPORT_BATCH } from "./export.ts";
export { mergeUtm, utmOf, utmSchema, UTM_FIELDS, type Utm, type UtmField } from "./utm.ts";
export { tagNamesOf } from "./link-tags.ts";
export { retagLinks, retagLinksSchema, RETAG_MAX_LINKS, type RetagLinksInput } from "./retag.ts";
export { isDenylisted, denylistedDestinations, isServiceHost } from "./rules.ts";
export { generateCode, isReservedAlias } from "./short-code.ts";
