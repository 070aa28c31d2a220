import { linkRoutes, unsupportedMethod } from "@/lib/api/links";

// GET / PATCH / DELETE /api/v1/links/{code}?domain=
const routes = linkRoutes();
export const GET = routes.GET;
export const PATCH = routes.PATCH;
export const DELETE = routes.DELETE;
export const POST = unsupportedMethod(["GET", "PATCH", "DELETE"]);
export const PUT = POST;
