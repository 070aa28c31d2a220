import { z } from "zod";
import { apiLinkSchema } from "../links/schemas.ts";

// The API's error bodies (docs/api.md "Endpoints") and the remaining response bodies as zod schemas: the source of the
// OpenAPI document, and what the integration tests check answers against (strict: no extra fields).

export const errorSchemas = {
  validation: z.strictObject({ error: z.literal("validation"), messages: z.array(z.string()).min(1) }),
  unauthorized: z.strictObject({ error: z.literal("unauthorized") }),
  feature: z.strictObject({ error: z.literal("feature"), key: z.string(), upgrade: z.literal(true) }),
  quota: z.strictObject({
    error: z.literal("quota"),
    key: z.string(),
    limit: z.number().int(),
    current: z.number().int(),
    upgrade: z.literal(true),
  }),
  not_found: z.strictObject({ error: z.literal("not_found") }),
  alias_taken: z.strictObject({ error: z.literal("alias_taken"), alias: z.string() }),
  ambiguous_code: z.strictObject({ error: z.literal("ambiguous_code"), code: z.string(), domains: z.array(z.string().nullable()) }),
  rate_limit: z.strictObject({ error: z.literal("rate_limit"), limit: z.number().int() }),
  server_error: z.strictObject({ error: z.literal("server_error"), message: z.string(), reference: z.string().optional() }),
} as const;
export type ErrorName = keyof typeof errorSchemas;

const e = errorSchemas;
export const anyErrorSchema = z.discriminatedUnion("error", [
  e.validation,
  e.unauthorized,
  e.feature,
  e.quota,
  e.not_found,
  e.alias_taken,
  e.ambiguous_code,
  e.rate_limit,
  e.server_error,
]);

/** The error table (docs/api.md "Endpoints"), for the reference page. */
export const ERROR_TABLE: { status: number; error: ErrorName; meaning: string; extra: string; retry: string }[] = [
  {
    status: 400,
    error: "validation",
    meaning:
      "Malformed or missing body (not JSON, wrong Content-Type, too large, unknown fields); required field absent; URL not a URL; alias longer than 40 characters or with characters other than letters, digits, - and _; destination refused (denylisted host, or an address that is already a short link); domain on create not the caller's or not verified and active; domain query parameter not the caller's; a custom domain's host malformed, already added or verified by another workspace; an app-link file of the wrong shape or over 64 KB.",
    extra: "messages: array of strings",
    retry: "No",
  },
  {
    status: 401,
    error: "unauthorized",
    meaning: "Key missing, unknown, revoked or expired, or workspace inactive. Identical in every case.",
    extra: "none",
    retry: "No",
  },
  {
    status: 403,
    error: "feature",
    meaning:
      "The plan lacks something the request asked for: ApiAccess, CustomAliases, LinkExpiry (expiresOn, startsOn), LinkPasswords, CustomDomains, BulkLinks; each checked separately.",
    extra: "key (the feature), upgrade: true",
    retry: "No",
  },
  {
    status: 403,
    error: "quota",
    meaning: "A numeric allowance is used up: MaxLinks, links created per calendar month (UTC); deleting does not free it.",
    extra: "key, limit, current, upgrade: true",
    retry: "No; wait for the monthly reset or change plan",
  },
  {
    status: 404,
    error: "not_found",
    meaning:
      "No link with that code in the workspace (also when it belongs to another workspace), no such custom domain in the workspace (also when another workspace has it), or no such endpoint.",
    extra: "none",
    retry: "No",
  },
  {
    status: 409,
    error: "alias_taken",
    meaning: "The custom alias is already used on that domain (or is one of the app's own paths).",
    extra: "alias",
    retry: "Yes, with a different alias or none",
  },
  {
    status: 409,
    error: "ambiguous_code",
    meaning:
      "The code exists on more than one of the caller's domains; GET, PATCH and DELETE of /links/{code} without domain. Nothing is read or changed.",
    extra: "code, domains (hosts; null for the default domain)",
    retry: "Yes, with domain naming one of the listed domains",
  },
  {
    status: 429,
    error: "rate_limit",
    meaning: "The key used up its budget for the current window.",
    extra: "limit",
    retry: "Yes, unchanged, after waiting up to the window length (60 s)",
  },
  {
    status: 500,
    error: "server_error",
    meaning: "Failure on the service side.",
    extra: "message; reference (same as the X-Error-Reference header)",
    retry: "Yes, once, after checking whether the write landed",
  },
];

export const bulkResultSchema = z.union([
  z.strictObject({ index: z.number().int().describe("Row position in the request, from 0."), status: z.literal(201), link: apiLinkSchema }),
  z.strictObject({
    index: z.number().int().describe("Row position in the request, from 0."),
    status: z.number().int().describe("The status a single create would have answered."),
    error: anyErrorSchema.describe("The error body a single create would have answered."),
  }),
]);
export const bulkResponseSchema = z.strictObject({ results: z.array(bulkResultSchema).describe("One entry per row, in input order.") });
