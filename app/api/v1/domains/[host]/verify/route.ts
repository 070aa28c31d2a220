import { unsupportedMethod, verifyDomainRoute } from "@/lib/api/domains";

// POST /api/v1/domains/{host}/verify: checks the TXT record; `verified` in the answer tells the outcome.
export const POST = verifyDomainRoute;
export const GET = unsupportedMethod(["POST"]);
export const PUT = GET;
export const PATCH = GET;
export const DELETE = GET;
