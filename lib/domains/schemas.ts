import { z } from "zod";
import { httpUrl } from "../links/schemas.ts";
import { withDefaultScheme } from "../links/url-input.ts";

// The request and response shapes of custom domains (the /api/v1/domains endpoints and the app's
// Domains page parse with these; the OpenAPI document is generated from them).

/** Each app-link file, serialized as JSON, is at most this many bytes (what the redirect path serves and mirrors). */
export const APP_LINK_FILE_MAX_BYTES = 64 * 1024;

/** A PATCH body holds at most both files and two URLs; room for whitespace around them. */
export const UPDATE_DOMAIN_MAX_BODY_BYTES = 4 * APP_LINK_FILE_MAX_BYTES;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

const withinFileLimit = <T>(v: T) => jsonBytes(v) <= APP_LINK_FILE_MAX_BYTES;
const fileLimitMessage = `must be at most ${APP_LINK_FILE_MAX_BYTES / 1024} KB as JSON`;

const jsonObject = z.record(z.string(), z.unknown(), { error: "must be a JSON object" });

export const appleAppSiteAssociationSchema = jsonObject
  .refine(withinFileLimit, fileLimitMessage)
  .describe("Served as /.well-known/apple-app-site-association on the verified domain (a JSON object, at most 64 KB).");

export const assetLinksSchema = z
  .array(z.record(z.string(), z.unknown(), { error: "must be a JSON object" }), { error: "must be a JSON array of objects" })
  .refine(withinFileLimit, fileLimitMessage)
  .describe("Served as /.well-known/assetlinks.json on the verified domain (a JSON array of objects, at most 64 KB).");

export const addDomainSchema = z.strictObject({
  host: z.string().describe("Host name such as links.example.com (no scheme, port or path)."),
});

export const updateDomainSchema = z.strictObject({
  appleAppSiteAssociation: appleAppSiteAssociationSchema.nullable().optional(),
  assetLinks: assetLinksSchema.nullable().optional(),
  rootUrl: httpUrl.nullable().optional().describe("Where / on the domain redirects (302); null: the 404 page."),
  notFoundUrl: httpUrl.nullable().optional().describe("Where an unknown code on the domain redirects (302); null: the 404 page."),
});
export type UpdateDomainInput = z.output<typeof updateDomainSchema>;

/** A text field of the app's form holding JSON: "" clears, anything else must parse and fit `schema`. */
const jsonText = <S extends z.ZodType>(schema: S) =>
  z
    .string()
    .max(UPDATE_DOMAIN_MAX_BODY_BYTES, `must be at most ${APP_LINK_FILE_MAX_BYTES / 1024} KB as JSON`)
    .transform((text, ctx) => {
      if (text.trim() === "") return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be valid JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema.nullable());

/** A URL field of the app's form: "" clears; an address typed without https:// gets it (url-input.ts). */
const urlText = z
  .string()
  .transform((v) => (v.trim() === "" ? null : withDefaultScheme(v)))
  .pipe(httpUrl.nullable());

/** The app's Domains page form: all four settings as typed (the API takes them as JSON values). */
export const domainSettingsFormSchema = z.strictObject({
  host: z.string(),
  appleAppSiteAssociation: jsonText(appleAppSiteAssociationSchema),
  assetLinks: jsonText(assetLinksSchema),
  rootUrl: urlText,
  notFoundUrl: urlText,
});
export type DomainSettingsForm = z.input<typeof domainSettingsFormSchema>;
export const DOMAIN_SETTINGS_FIELDS = ["appleAppSiteAssociation", "assetLinks", "rootUrl", "notFoundUrl"] as const;

export const apiDomainSchema = z.strictObject({
  id: z.number().int(),
  host: z.string(),
  verified: z.boolean().describe("The TXT record was found; links can live on the domain."),
  active: z.boolean(),
  txtName: z.string().describe("Name of the TXT record that proves ownership."),
  txtValue: z.string().describe("Value of that TXT record."),
  appleAppSiteAssociation: z.record(z.string(), z.unknown()).nullable(),
  assetLinks: z.array(z.record(z.string(), z.unknown())).nullable(),
  rootUrl: z.string().nullable(),
  notFoundUrl: z.string().nullable(),
});
export type ApiDomain = z.output<typeof apiDomainSchema>;

export const listDomainsResponseSchema = z.strictObject({ domains: z.array(apiDomainSchema) });
