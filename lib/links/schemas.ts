import { z } from "zod";
import { linkTagsSchema, tagName } from "../tags/schemas.ts";
import { httpUrl, text } from "./field-schemas.ts";
import { routingFields, routingViewFields } from "./routing-schema.ts";
import { utmSchema } from "./utm.ts";

export { httpUrl, MAX_URL_LENGTH, text } from "./field-schemas.ts";

// The request and response shapes of links, one zod schema each. The API routes and the app's
// server actions parse with these very schemas, and the OpenAPI document is generated from them.

export const MAX_UNIX_SECONDS = 253_402_300_799; // 9999-12-31T23:59:59Z
export const ALIAS_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;
export const BULK_MAX_ROWS = 1000;
/** Passwords one bulk request may have hashed (scrypt is slow on purpose); see bulkCreateLinks. */
export const BULK_MAX_PASSWORD_ROWS = 100;
export const PAGE_MAX = 100;
export const PAGE_DEFAULT = 50;

const unixSeconds = z
  .number()
  .int("must be whole unix seconds")
  .min(0, "must be unix seconds (0 or more)")
  .max(MAX_UNIX_SECONDS, "must be unix seconds before the year 10000");

/** Where a link may send a visitor instead of the destination, by device or country. */
export const targetingSchema = z
  .strictObject({
    ios: httpUrl.optional(),
    android: httpUrl.optional(),
    geo: z
      .record(z.string().regex(/^[A-Z]{2}$/, "country codes are ISO 3166 alpha-2, upper case"), httpUrl)
      .refine((g) => Object.keys(g).length <= 250, "at most 250 countries")
      .optional(),
  })
  .describe("Device and country targeting. A setting outside the link object: it is not returned in link objects.");

const alias = z
  .string()
  .regex(ALIAS_PATTERN, "must be 1 to 40 characters: letters, digits, - and _")
  .describe("Custom code (case-sensitive). Feature CustomAliases.");

const host = text()
  .trim()
  .toLowerCase()
  .min(1, "must be a host name")
  .max(253, "must be at most 253 characters")
  .transform((v) => v.replace(/\.$/, ""));

/** Folder path: segments separated by "/", leading and trailing slashes dropped; "" is the top. */
const folder = text()
  .max(200, "must be at most 200 characters")
  .transform((v) => v.trim().replace(/^\/+|\/+$/g, ""))
  .refine(
    (v) => v === "" || v.split("/").every((s) => s.trim() === s && s.length > 0),
    "segments must be non-empty, separated by single slashes, without spaces around them",
  )
  .describe('Folder path, segments separated by "/" (e.g. "marketing/2026"). "" is the top level.');

const title = text().max(500, "must be at most 500 characters").describe("Title shown in the app.");
const notes = text().max(5000, "must be at most 5000 characters");
const password = text().min(1, "must not be empty").max(200, "must be at most 200 characters");
const maxClicks = z.number().int("must be a whole number").min(1, "must be at least 1").max(2_147_483_647, "is too large");

/** POST /api/v1/links body, and each row of a bulk create. */
export const createLinkSchema = z.strictObject({
  url: httpUrl.describe("Destination URL (http or https)."),
  alias: alias.optional(),
  domain: host
    .optional()
    .describe(
      "Host of a verified, active domain of the workspace; omitted or the default short domain for the default domain. Feature CustomDomains for a custom domain.",
    ),
  expiresOn: unixSeconds.nullable().optional().describe("Expiry, unix seconds. Feature LinkExpiry."),
  startsOn: unixSeconds.nullable().optional().describe("Start time, unix seconds; before it the link is not active. Feature LinkExpiry."),
  maxClicks: maxClicks.nullable().optional().describe("Click cap."),
  fallbackUrl: httpUrl.nullable().optional().describe("Where visitors go when the link is inactive, not started, expired or capped."),
  password: password.nullable().optional().describe("Visitors must enter it. Stored hashed, never returned. Feature LinkPasswords."),
  title: title.optional(),
  notes: notes.nullable().optional(),
  folder: folder.optional(),
  active: z.boolean().optional().describe("Default true."),
  targeting: targetingSchema.nullable().optional(),
  tags: linkTagsSchema.optional(),
  utm: utmSchema.optional(),
  ...routingFields,
});
export type CreateLinkInput = z.output<typeof createLinkSchema>;

/** PATCH /api/v1/links/{code} body: the create fields, all optional; null clears a nullable field. */
export const updateLinkSchema = z.strictObject({
  url: httpUrl.optional().describe("Destination URL (http or https)."),
  alias: alias.optional().describe("A new code for the link (case-sensitive). Feature CustomAliases."),
  domain: z
    .never({ message: "cannot be changed; create the link on the other domain instead" })
    .optional()
    .describe("Cannot be changed (400)."),
  expiresOn: unixSeconds.nullable().optional().describe("Expiry, unix seconds; null clears. Feature LinkExpiry."),
  startsOn: unixSeconds.nullable().optional().describe("Start time, unix seconds; null clears. Feature LinkExpiry."),
  maxClicks: maxClicks.nullable().optional().describe("Click cap; null clears."),
  fallbackUrl: httpUrl.nullable().optional(),
  password: password.nullable().optional().describe("A new password; null removes it. Feature LinkPasswords."),
  title: title.optional(),
  notes: notes.nullable().optional(),
  folder: folder.optional(),
  active: z.boolean().optional(),
  targeting: targetingSchema.nullable().optional(),
  tags: linkTagsSchema.optional().describe("Replaces the link's tags ([] removes them all). Tags that do not exist yet are created."),
  utm: utmSchema.optional().describe("Merged into url (the new one when the body has url, else the current one)."),
  ...routingFields,
});
export type UpdateLinkInput = z.output<typeof updateLinkSchema>;

/** POST /api/v1/links/bulk body. Rows are checked one by one (each gets its own result). */
export const bulkCreateLinksSchema = z.strictObject({
  links: z
    .array(z.unknown().meta({ description: "A create body (see CreateLink)." }))
    .min(1, "must hold at least 1 link")
    .max(BULK_MAX_ROWS, `must hold at most ${BULK_MAX_ROWS} links`),
});
export type BulkCreateLinksInput = z.output<typeof bulkCreateLinksSchema>;

/** The optional domain query parameter of the single-link endpoints. */
export const linkRefQuerySchema = z.strictObject({
  domain: host.optional().describe("Host the link lives on; the default short domain for the default domain."),
});
export type LinkRefQuery = z.output<typeof linkRefQuerySchema>;

/** GET /api/v1/links query. */
export const listLinksQuerySchema = z.strictObject({
  size: z
    .string()
    .regex(/^\d{1,3}$/, `must be a whole number from 1 to ${PAGE_MAX}`)
    .transform(Number)
    .pipe(z.number().min(1, `must be from 1 to ${PAGE_MAX}`).max(PAGE_MAX, `must be from 1 to ${PAGE_MAX}`))
    .optional()
    .describe(`Links per page, 1 to ${PAGE_MAX} (default ${PAGE_DEFAULT}).`),
  cursor: text().max(200, "is not a cursor from this API").optional().describe("nextCursor of the previous page."),
  domain: host.optional().describe("Only links on this host (the default short domain for the default domain)."),
  folder: folder.optional().describe("Only links in this folder and its subfolders."),
  q: text().max(200, "must be at most 200 characters").optional().describe("Case-insensitive text found in url, code or title."),
  tag: z
    .array(tagName)
    .max(20, "at most 20 tags")
    .optional()
    .describe("Only links with any of these tags (name, any case); repeat the parameter for several: tag=a&tag=b."),
});
export type ListLinksQuery = z.output<typeof listLinksQuerySchema>;

/** GET /api/v1/links/export query: the list's filters, without paging. */
export const exportLinksQuerySchema = listLinksQuerySchema.omit({ size: true, cursor: true });
export type ExportLinksQuery = z.output<typeof exportLinksQuerySchema>;

/** Query parameters of the list and the export that may be repeated. */
export const REPEATABLE_LINK_QUERY = ["tag"];

/** The code path segment: anything else cannot name a link. */
export const codeSchema = z.string().regex(ALIAS_PATTERN);

// ---- Response shapes (documentation and tests; the serializers in serialize.ts produce them) ----

export const webhookLinkSchema = z.strictObject({
  id: z.number().int().describe("The service's number for the link."),
  short: z.string().describe("Full short URL."),
  code: z.string(),
  domain: z.string().describe("Host the link lives on."),
  url: z.string(),
  active: z.boolean(),
  expiresOn: z.number().int().nullable().describe("Unix seconds; null when unset."),
  maxClicks: z.number().int().nullable(),
  startsOn: z.number().int().nullable().describe("Unix seconds; null when unset."),
  fallbackUrl: z.string().nullable(),
  createdOn: z.number().int().describe("Unix seconds."),
  folder: z.string(),
  title: z.string(),
  notes: z.string().nullable(),
});

export const apiLinkSchema = webhookLinkSchema.extend({
  clicks: z.number().int(),
  hasPassword: z.boolean(),
  tags: z.array(z.string()).describe("Tag names, sorted ignoring case. Not in the webhook link object."),
  targeting: targetingSchema.nullable().describe("Device and country targeting; null when none. Not in the webhook link object."),
  ...routingViewFields,
});

export const listLinksResponseSchema = z.strictObject({
  links: z.array(apiLinkSchema),
  nextCursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page."),
});

export const deleteLinkResponseSchema = z.strictObject({ id: z.number().int(), deleted: z.literal(true) });
