"use server";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { parseInput } from "@/lib/errors";
import { idSchema } from "@/lib/ids";
import { createUtmTemplate, deleteUtmTemplate, utmTemplateSchema } from "@/lib/links/utm-templates";
import { createTag, createTagSchema, deleteTag, updateTag, updateTagSchema } from "@/lib/tags";

// Tags and UTM templates of a workspace (any member: links name tags anyway, so links.write). The
// same services as /api/v1/tags; templates are used by the link form.

const page = "/settings/campaigns";
const byId = z.object({ id: idSchema });
/** A tag's name and colour show on the Links page too. */
const linksToo = (slug: string) => revalidatePath(`/w/${slug}/links`);

export const createTagAction = workspaceAction(
  { permission: "links.write", schema: z.unknown(), revalidate: page, fields: ["name", "color"] },
  async ({ workspace }, input) => ({ id: (await createTag(workspace, parseInput(createTagSchema, input))).id }),
);

export const updateTagAction = workspaceAction(
  { permission: "links.write", schema: z.object({ id: idSchema, input: z.unknown() }), revalidate: page, fields: ["name", "color"] },
  async ({ workspace, slug }, { id, input }) => {
    const tag = await updateTag(workspace, id, parseInput(updateTagSchema, input));
    linksToo(slug);
    return { id: tag.id };
  },
);

export const deleteTagAction = workspaceAction(
  { permission: "links.write", schema: byId, revalidate: page },
  async ({ workspace, slug }, { id }) => {
    await deleteTag(workspace, id);
    linksToo(slug);
    return { id };
  },
);

export const createUtmTemplateAction = workspaceAction(
  { permission: "links.write", schema: utmTemplateSchema, revalidate: page, fields: ["name", "utm"] },
  async ({ workspace }, input) => ({ id: (await createUtmTemplate(workspace, input)).id }),
);

export const deleteUtmTemplateAction = workspaceAction(
  { permission: "links.write", schema: byId, revalidate: page },
  async ({ workspace }, { id }) => {
    await deleteUtmTemplate(workspace, id);
    return { id };
  },
);
