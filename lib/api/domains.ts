import { getDomain, toApiDomain, updateDomainSettings } from "../domains/app-links.ts";
import { addDomain, listDomains, verifyDomainByHost } from "../domains/index.ts";
import { addDomainSchema, UPDATE_DOMAIN_MAX_BODY_BYTES, updateDomainSchema } from "../domains/schemas.ts";
import { apiRoute, unsupportedMethod } from "./handler.ts";

// The /api/v1/domains endpoints (README "Domains API and app links"): parse with the domain
// schemas, call the domain service, serialize. The key acts for its workspace (no member role);
// another workspace's host is 404 on every /domains/{host} path (the service looks up by workspace).

const hostParam = (params: Record<string, string | string[]>) => String(params.host ?? "");

export const listDomainsRoute = apiRoute({
  run: async ({ workspace }) => ({ status: 200, body: { domains: (await listDomains(workspace.id)).map(toApiDomain) } }),
});

export const addDomainRoute = apiRoute({
  body: addDomainSchema,
  run: async ({ workspace, body }) => ({ status: 201, body: toApiDomain(await addDomain(workspace, body.host)) }),
});

export const getDomainRoute = apiRoute({
  run: async ({ workspace, params }) => ({ status: 200, body: toApiDomain(await getDomain(workspace, hostParam(params))) }),
});

export const updateDomainRoute = apiRoute({
  body: updateDomainSchema,
  maxBodyBytes: UPDATE_DOMAIN_MAX_BODY_BYTES,
  run: async ({ workspace, params, body }) => ({
    status: 200,
    body: toApiDomain(await updateDomainSettings(workspace, hostParam(params), body)),
  }),
});

export const verifyDomainRoute = apiRoute({
  run: async ({ workspace, params }) => ({
    status: 200,
    body: toApiDomain((await verifyDomainByHost(workspace, hostParam(params))).domain),
  }),
});

export { unsupportedMethod };
