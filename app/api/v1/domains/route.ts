import { addDomainRoute, listDomainsRoute, unsupportedMethod } from "@/lib/api/domains";

// GET /api/v1/domains (list), POST /api/v1/domains (add, pending). Everything happens in lib/api and lib/domains.
export const GET = listDomainsRoute;
export const POST = addDomainRoute;
export const PUT = unsupportedMethod(["GET", "POST"]);
export const PATCH = PUT;
export const DELETE = PUT;
