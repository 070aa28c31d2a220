import { z } from "zod";
import { config } from "../config/index.ts";
import {
  apiLinkSchema,
  BULK_MAX_PASSWORD_ROWS,
  BULK_MAX_ROWS,
  bulkCreateLinksSchema,
  createLinkSchema,
  deleteLinkResponseSchema,
  exportLinksQuerySchema,
  linkRefQuerySchema,
  listLinksQuerySchema,
  listLinksResponseSchema,
  PAGE_DEFAULT,
  PAGE_MAX,
  updateLinkSchema,
  webhookLinkSchema,
} from "../links/schemas.ts";
import { apiTagSchema, createTagSchema, deleteTagResponseSchema, listTagsResponseSchema, updateTagSchema } from "../tags/schemas.ts";
import {
  analyticsAnswerSchema,
  analyticsExportQuerySchema,
  analyticsQuerySchema,
  LIMIT_DEFAULT,
  LIMIT_MAX,
} from "../analytics/reports/schemas.ts";
import { bulkResponseSchema, errorSchemas, type ErrorName } from "./schemas.ts";

// The OpenAPI 3.1 document of /api/v1, generated from the same zod schemas the routes parse with
// (served at /api/v1/openapi.json, rendered at /docs/api).

type Json = Record<string, unknown>;

const COMPONENTS: [string, z.ZodType][] = [
  ["CreateLink", createLinkSchema],
  ["UpdateLink", updateLinkSchema],
  ["BulkCreateLinks", bulkCreateLinksSchema],
  ["Link", apiLinkSchema],
  ["WebhookLink", webhookLinkSchema],
  ["LinkList", listLinksResponseSchema],
  ["DeleteResult", deleteLinkResponseSchema],
  ["BulkResults", bulkResponseSchema],
  ["Tag", apiTagSchema],
  ["TagList", listTagsResponseSchema],
  ["CreateTag", createTagSchema],
  ["UpdateTag", updateTagSchema],
  ["DeleteTagResult", deleteTagResponseSchema],
  ["Analytics", analyticsAnswerSchema],
  ...Object.entries(errorSchemas).map(([name, s]) => [errorComponent(name as ErrorName), s] as [string, z.ZodType]),
];

function errorComponent(name: ErrorName): string {
  return "Error_" + name;
}

function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of COMPONENTS) registry.add(schema, { id });
  const out = z.toJSONSchema(registry, { io: "input", unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Json>;
  };
  const schemas = Object.fromEntries(Object.entries(out.schemas).map(([k, v]) => [k, stripSchemaKeys(v)]));
  // Bulk rows are checked one by one (each gets its own result), so the schema takes any value;
  // document what a row should be.
  const bulk = schemas.BulkCreateLinks as { properties: { links: Json } };
  bulk.properties.links.items = { $ref: "#/components/schemas/CreateLink" };
  return schemas;
}

function stripSchemaKeys(v: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = v;
  return rest;
}

/** Query schema properties as OpenAPI parameters. */
function queryParameters(schema: z.ZodType): Json[] {
  const js = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, p]) => {
    const { description, ...rest } = p;
    // size is parsed from the query string's text; document the number it must be.
    const type =
      name === "size"
        ? { type: "integer", minimum: 1, maximum: PAGE_MAX, default: PAGE_DEFAULT }
        : name === "limit"
          ? { type: "integer", minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT }
          : rest;
    const repeat = (rest as { type?: string }).type === "array" ? { style: "form", explode: true } : {};
    return { name, in: "query", required: js.required?.includes(name) ?? false, description, schema: type, ...repeat };
  });
}

const rateHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/X-RateLimit-Limit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/X-RateLimit-Remaining" },
};

function errorResponses(names: ErrorName[]): Record<string, Json> {
  const byStatus = new Map<number, ErrorName[]>();
  const status: Record<ErrorName, number> = {
    validation: 400,
    unauthorized: 401,
    feature: 403,
    quota: 403,
    not_found: 404,
    alias_taken: 409,
    ambiguous_code: 409,
    rate_limit: 429,
    server_error: 500,
  };
  for (const n of ["unauthorized", "rate_limit", "server_error", ...names] as ErrorName[]) {
    byStatus.set(status[n], [...new Set([...(byStatus.get(status[n]) ?? []), n])]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([code, list]) => {
        const refs = list.map((n) => ({ $ref: `#/components/schemas/${errorComponent(n)}` }));
        const headers =
          code === 401
            ? {}
            : code === 500
              ? { ...rateHeaders, "X-Error-Reference": { schema: { type: "string" }, description: "Same as reference in the body." } }
              : rateHeaders;
        return [
          String(code),
          {
            description: list.join(" or "),
            headers,
            content: { "application/json": { schema: refs.length === 1 ? refs[0] : { oneOf: refs } } },
          },
        ];
      }),
  );
}

function ok(status: number, description: string, ref: string): Record<string, Json> {
  return {
    [String(status)]: {
      description,
      headers: rateHeaders,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
    },
  };
}

const jsonBody = (ref: string) => ({
  required: true,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});

/** curl examples, one per endpoint (also in the README). */
export function curlExamples(base = config().APP_URL) {
  const auth = `-H "Authorization: Bearer $LINKHOP_KEY"`;
  const json = `-H "Content-Type: application/json"`;
  return {
    createLink: `curl -X POST ${base}/api/v1/links ${auth} ${json} \\\n  -d '{"url":"https://example.com/spring-sale","title":"Spring sale"}'`,
    listLinks: `curl "${base}/api/v1/links?size=20&q=sale" ${auth}`,
    bulkCreateLinks: `curl -X POST ${base}/api/v1/links/bulk ${auth} ${json} \\\n  -d '{"links":[{"url":"https://example.com/a"},{"url":"https://example.com/b","alias":"b-page"}]}'`,
    getLink: `curl "${base}/api/v1/links/Ab3dE9x" ${auth}`,
    updateLink: `curl -X PATCH "${base}/api/v1/links/Ab3dE9x" ${auth} ${json} \\\n  -d '{"url":"https://example.com/summer-sale","expiresOn":null}'`,
    deleteLink: `curl -X DELETE "${base}/api/v1/links/Ab3dE9x?domain=go.example.com" ${auth}`,
    exportLinks: `curl -o links.csv "${base}/api/v1/links/export?tag=spring&tag=sale" ${auth}`,
    listTags: `curl ${base}/api/v1/tags ${auth}`,
    createTag: `curl -X POST ${base}/api/v1/tags ${auth} ${json} \\\n  -d '{"name":"Spring 2026","color":"green"}'`,
    updateTag: `curl -X PATCH ${base}/api/v1/tags/12 ${auth} ${json} \\\n  -d '{"name":"Spring sale"}'`,
    deleteTag: `curl -X DELETE ${base}/api/v1/tags/12 ${auth}`,
    analytics: `curl "${base}/api/v1/analytics?groupBy=countries&interval=7d&link=Ab3dE9x" ${auth}`,
    analyticsExport: `curl -o clicks.csv "${base}/api/v1/analytics/export?interval=30d" ${auth}`,
  };
}

export function buildOpenApiDocument(): Json {
  const cfg = config();
  const curl = curlExamples(cfg.APP_URL);
  const sample = (id: keyof typeof curl) => ({ "x-codeSamples": [{ lang: "curl", source: curl[id] }] });
  const codeParam = {
    name: "code",
    in: "path",
    required: true,
    description: "The code part of the short URL (case-sensitive).",
    schema: { type: "string", pattern: "^[A-Za-z0-9_-]{1,40}$" },
  };
  const single = [codeParam, ...queryParameters(linkRefQuerySchema)];
  const tagIdParam = { name: "id", in: "path", required: true, description: "The tag's id.", schema: { type: "integer" } };
  return {
    openapi: "3.1.0",
    info: {
      title: "Linkhop API",
      version: "1",
      description:
        `JSON API for the links of one workspace. Authenticate with Authorization: Bearer <API key> (create keys in the app: Settings, API keys). ` +
        `Each key has its own budget of requests per ${cfg.RATE_LIMIT_WINDOW_SECONDS}-second window, starting at the key's first request; ` +
        `X-RateLimit-Limit and X-RateLimit-Remaining are on every authenticated answer (not on 401, not on 403 ApiAccess, not on plans without a rate). ` +
        `Check order: 401, 403 ApiAccess, 429, 400, 403 feature, 403 quota, 404/409. The default short domain is ${cfg.shortDomain}.`,
    },
    servers: [{ url: `${cfg.APP_URL}/api/v1` }],
    security: [{ bearer: [] }],
    paths: {
      "/links": {
        post: {
          operationId: "createLink",
          summary: "Create a link",
          description:
            "Creates a link on the default domain or a verified, active custom domain of the workspace. Counts against the monthly MaxLinks allowance; a refused create creates nothing and spends nothing.",
          requestBody: jsonBody("CreateLink"),
          responses: { ...ok(201, "The new link.", "Link"), ...errorResponses(["validation", "feature", "quota", "alias_taken"]) },
          ...sample("createLink"),
        },
        get: {
          operationId: "listLinks",
          summary: "List links",
          description: `Newest first, keyset pagination: pass nextCursor as cursor for the next page. size 1 to ${PAGE_MAX}.`,
          parameters: queryParameters(listLinksQuerySchema),
          responses: { ...ok(200, "A page of links.", "LinkList"), ...errorResponses(["validation", "feature"]) },
          ...sample("listLinks"),
        },
      },
      "/links/bulk": {
        post: {
          operationId: "bulkCreateLinks",
          summary: "Create many links",
          description: `1 to ${BULK_MAX_ROWS} rows, each a create body; one result per row in input order (index from 0): { index, status: 201, link } or { index, status, error }. Counts as one request against the rate budget. Rows that would pass the monthly allowance fail with the quota error, and no row after them is created. A row's password is hashed only once the row passed every other check; when more than ${BULK_MAX_PASSWORD_ROWS} rows with a password pass them, the whole request is refused with 400 validation and nothing is created. Feature BulkLinks.`,
          requestBody: jsonBody("BulkCreateLinks"),
          responses: { ...ok(200, "A result per row.", "BulkResults"), ...errorResponses(["validation", "feature"]) },
          ...sample("bulkCreateLinks"),
        },
      },
      "/links/export": {
        get: {
          operationId: "exportLinks",
          summary: "Export links as CSV",
          description:
            "The workspace's links matching the list's filters (q, folder, tag, domain), oldest first, as CSV with the import's columns " +
            "(url, alias, domain, title, notes, folder, active, startsOn, expiresOn, maxClicks, fallbackUrl, password, ios, android, geo, tags), " +
            "so the file imports into another workspace unchanged. domain is empty for the default short domain; password is always empty " +
            "(only a hash is stored). Text cells starting with =, +, -, @, tab or CR get a leading apostrophe, which the importer drops. " +
            "Streamed: any number of links. Counts as one request. A link whose code is export cannot be read with GET here (PATCH and DELETE still reach it).",
          parameters: queryParameters(exportLinksQuerySchema),
          responses: {
            "200": {
              description: "CSV text (UTF-8), a header row and one row per link.",
              headers: rateHeaders,
              content: { "text/csv": { schema: { type: "string" } } },
            },
            ...errorResponses(["validation", "feature"]),
          },
          ...sample("exportLinks"),
        },
      },
      "/links/{code}": {
        get: {
          operationId: "getLink",
          summary: "Read a link",
          description: "Without domain: the workspace's one link with that code; 409 ambiguous_code when several of its domains have it.",
          parameters: single,
          responses: { ...ok(200, "The link.", "Link"), ...errorResponses(["validation", "feature", "not_found", "ambiguous_code"]) },
          ...sample("getLink"),
        },
        patch: {
          operationId: "updateLink",
          summary: "Edit a link",
          description:
            "Fields as on create, all optional; null clears a nullable field; domain cannot be changed. An edit that changes nothing writes nothing.",
          parameters: single,
          requestBody: jsonBody("UpdateLink"),
          responses: {
            ...ok(200, "The link after the edit.", "Link"),
            ...errorResponses(["validation", "feature", "not_found", "alias_taken", "ambiguous_code"]),
          },
          ...sample("updateLink"),
        },
        delete: {
          operationId: "deleteLink",
          summary: "Delete a link",
          description: "Deleting does not give back the monthly allowance.",
          parameters: single,
          responses: {
            ...ok(200, "Deleted.", "DeleteResult"),
            ...errorResponses(["validation", "feature", "not_found", "ambiguous_code"]),
          },
          ...sample("deleteLink"),
        },
      },
      "/tags": {
        get: {
          operationId: "listTags",
          summary: "List tags",
          description: "All tags of the workspace, by name (ignoring case).",
          responses: { ...ok(200, "The tags.", "TagList"), ...errorResponses(["validation", "feature"]) },
          ...sample("listTags"),
        },
        post: {
          operationId: "createTag",
          summary: "Create a tag",
          description:
            "Names are unique in the workspace ignoring case (a duplicate is 400 validation), 1 to 50 characters, without commas. Links can also create tags by naming them in tags.",
          requestBody: jsonBody("CreateTag"),
          responses: { ...ok(201, "The new tag.", "Tag"), ...errorResponses(["validation", "feature"]) },
          ...sample("createTag"),
        },
      },
      "/tags/{id}": {
        patch: {
          operationId: "updateTag",
          summary: "Rename or recolour a tag",
          description:
            "Renaming to the name of another tag of the workspace (ignoring case) is 400 validation. Links keep the tag under its new name; no webhook is sent.",
          parameters: [tagIdParam],
          requestBody: jsonBody("UpdateTag"),
          responses: { ...ok(200, "The tag after the edit.", "Tag"), ...errorResponses(["validation", "feature", "not_found"]) },
          ...sample("updateTag"),
        },
        delete: {
          operationId: "deleteTag",
          summary: "Delete a tag",
          description: "Removes the tag from every link that has it; the links stay. No webhook is sent.",
          parameters: [tagIdParam],
          responses: { ...ok(200, "Deleted.", "DeleteTagResult"), ...errorResponses(["validation", "feature", "not_found"]) },
          ...sample("deleteTag"),
        },
      },
      "/analytics": {
        get: {
          operationId: "getAnalytics",
          summary: "Click analytics",
          description:
            "Clicks and unique visitors of the workspace's links: a total (groupBy=count), a time series (hour buckets for ranges up to 48 hours, else days, in timezone, every bucket present), " +
            "or the top values of a dimension (countries, cities, referrers, devices, browsers, os, links, qr, tags, utm_source, utm_medium, utm_campaign, destinations, languages), most clicks first, at most limit rows. " +
            "The range is interval (default 30d) or start/end, cut to the plan's analyticsRetentionDays. Bots (as isbot judges a User-Agent) are redirected but not counted: " +
            "they are left out unless bots=include or bots=only. Visitors: distinct visitor keys per UTC day, summed. A link of another workspace is 404; a code on several of your domains without domain is 409 ambiguous_code.",
          parameters: queryParameters(analyticsQuerySchema),
          responses: {
            ...ok(200, "The answer.", "Analytics"),
            ...errorResponses(["validation", "feature", "not_found", "ambiguous_code"]),
          },
          ...sample("analytics"),
        },
      },
      "/analytics/export": {
        get: {
          operationId: "exportAnalytics",
          summary: "Export click events (CSV)",
          description:
            "The raw click events of the range and filters as CSV, oldest first, one row per event, streamed. Columns: time, link, domain, target, country, city, referrer_host, referrer_url, device, browser, os, bot, qr, destination, language (empty: not recorded). " +
            "The visitor key is never exported; the visitor's address is never stored. Cells that a spreadsheet would read as a formula start with an apostrophe.",
          parameters: queryParameters(analyticsExportQuerySchema),
          responses: {
            "200": {
              description: "CSV, one row per click event.",
              headers: rateHeaders,
              content: { "text/csv": { schema: { type: "string" } } },
            },
            ...errorResponses(["validation", "feature", "not_found", "ambiguous_code"]),
          },
          ...sample("analyticsExport"),
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key: lh_ followed by 40 letters and digits." } },
      headers: {
        "X-RateLimit-Limit": { description: "Requests allowed per window for this key.", schema: { type: "integer" } },
        "X-RateLimit-Remaining": { description: "Requests left in the current window (0 on a 429).", schema: { type: "integer" } },
      },
      schemas: componentSchemas(),
    },
  };
}
