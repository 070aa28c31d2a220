// Tags: the one place of tag rules (API, app pages and the link service call these).
export * from "./schemas.ts";
export * from "./service.ts";
