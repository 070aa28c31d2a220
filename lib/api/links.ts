import {
  bulkCreateLinks,
  bulkCreateLinksSchema,
  createLink,
  createLinkCountingRate,
  createLinkSchema,
  deleteLink,
  exportFileName,
  exportLinksCsv,
  exportLinksQuerySchema,
  getLink,
  getLinkCountingRate,
  linkRefQuerySchema,
  listLinks,
  listLinksCountingRate,
  listLinksQuerySchema,
  REPEATABLE_LINK_QUERY,
  toApiLink,
  updateLink,
  updateLinkSchema,
  type LinksPage,
  type LinkWithHost,
} from "../links/index.ts";
import { errorBody } from "./error-body.ts";
import { apiRoute, unsupportedMethod } from "./handler.ts";

// The /api/v1/links endpoints (docs/api.md): parse with the links schemas, call the link
// service, serialize. The route files under app/api/v1 only export these.

const apiLink = (l: LinkWithHost) => toApiLink(l, l.host);
const codeParam = (params: Record<string, string | string[]>) => String(params.code ?? "");

export const createLinkRoute = apiRoute({
  body: createLinkSchema,
  // the request counted in the create's statement (create-plan.ts says when)
  countedRun: async ({ workspace, body }, rate) => {
    const made = await createLinkCountingRate(workspace, body, rate);
    return made && { rateCount: made.rateCount, answer: async () => ({ status: 201, body: apiLink(await made.link()) }) };
  },
  run: async ({ workspace, body }) => ({ status: 201, body: apiLink(await createLink(workspace, body)) }),
});

const pageBody = (page: LinksPage) => ({ links: page.links.map(apiLink), nextCursor: page.nextCursor });

export const listLinksRoute = apiRoute({
  query: listLinksQuerySchema,
  repeatable: REPEATABLE_LINK_QUERY,
  // without filters: the page is read in the statement that counts the request
  countedRun: async ({ workspace, query }, rate) => {
    const read = await listLinksCountingRate(workspace, query, rate);
    return read && { rateCount: read.rateCount, answer: () => ({ status: 200, body: pageBody(read.page()) }) };
  },
  run: async ({ workspace, query }) => ({ status: 200, body: pageBody(await listLinks(workspace, query)) }),
});

/** GET /api/v1/links/export: the filtered links as CSV, streamed. */
export const exportLinksRoute = apiRoute({
  query: exportLinksQuerySchema,
  repeatable: REPEATABLE_LINK_QUERY,
  run: async ({ workspace, query }) => ({
    status: 200,
    stream: await exportLinksCsv(workspace, query),
    headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${exportFileName(workspace)}"` },
  }),
});

export const bulkCreateLinksRoute = apiRoute({
  body: bulkCreateLinksSchema,
  maxBodyBytes: 4 * 1024 * 1024,
  run: async ({ workspace, body }) => {
    const results = await bulkCreateLinks(workspace, body.links);
    return {
      status: 200,
      body: {
        results: results.map((r) =>
          "link" in r ? { index: r.index, status: r.status, link: apiLink(r.link) } : { ...r, error: errorBody(r.error) },
        ),
      },
    };
  },
});

/** The single-link endpoints; `fixedCode` serves a code that is also a static path ("bulk"). */
export function linkRoutes(fixedCode?: string) {
  const code = (params: Record<string, string | string[]>) => fixedCode ?? codeParam(params);
  return {
    GET: apiRoute({
      query: linkRefQuerySchema,
      // by code on any domain: the link is read in the statement that counts the request
      countedRun: async ({ workspace, params, query }, rate) => {
        if (query.domain !== undefined) return null;
        const read = await getLinkCountingRate(workspace, code(params), rate);
        return read && { rateCount: read.rateCount, answer: () => ({ status: 200, body: apiLink(read.link()) }) };
      },
      run: async ({ workspace, params, query }) => ({
        status: 200,
        body: apiLink(await getLink(workspace, { code: code(params), ...query })),
      }),
    }),
    PATCH: apiRoute({
      query: linkRefQuerySchema,
      body: updateLinkSchema,
      run: async ({ workspace, params, query, body }) => ({
        status: 200,
        body: apiLink((await updateLink(workspace, { code: code(params), ...query }, body)).link),
      }),
    }),
    DELETE: apiRoute({
      query: linkRefQuerySchema,
      run: async ({ workspace, params, query }) => {
        const r = await deleteLink(workspace, { code: code(params), ...query });
        return { status: 200, body: { id: r.id, deleted: true } };
      },
    }),
  };
}

export { unsupportedMethod };
