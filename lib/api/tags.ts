import { createTag, createTagSchema, deleteTag, listTags, toApiTag, updateTag, updateTagSchema } from "../tags/index.ts";
import { apiRoute, unsupportedMethod } from "./handler.ts";

// The /api/v1/tags endpoints: parse with the tag schemas, call the tag service, serialize.

const idParam = (params: Record<string, string | string[]>) => String(params.id ?? "");

export const listTagsRoute = apiRoute({
  run: async ({ workspace }) => ({ status: 200, body: { tags: (await listTags(workspace)).map(toApiTag) } }),
});

export const createTagRoute = apiRoute({
  body: createTagSchema,
  run: async ({ workspace, body }) => ({ status: 201, body: toApiTag(await createTag(workspace, body)) }),
});

export const updateTagRoute = apiRoute({
  body: updateTagSchema,
  run: async ({ workspace, params, body }) => ({ status: 200, body: toApiTag(await updateTag(workspace, idParam(params), body)) }),
});

export const deleteTagRoute = apiRoute({
  run: async ({ workspace, params }) => ({ status: 200, body: await deleteTag(workspace, idParam(params)) }),
});

export { unsupportedMethod };
