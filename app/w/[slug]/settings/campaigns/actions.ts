"use server";
import { revalidatePath } from "next/cache";
import { actionFailure, ok, type ActionResult } from "@/lib/actions/result";
import { parseInput } from "@/lib/errors";
import { createUtmTemplate, deleteUtmTemplate, utmTemplateSchema } from "@/lib/links/utm-templates";
import { createTag, createTagSchema, deleteTag, updateTag, updateTagSchema } from "@/lib/tags";
import { requireMember } from "../../access";

// Tags and UTM templates of a workspace (any member: links name tags anyway). The same services as
// /api/v1/tags; templates are used by the link form.

const page = (slug: string) => `/w/${slug}/settings/campaigns`;

export async function createTagAction(slug: string, input: unknown): Promise<ActionResult<{ id: number }>> {
  const { workspace } = await requireMember(slug);
  try {
    const tag = await createTag(workspace, parseInput(createTagSchema, input));
    revalidatePath(page(slug));
    return ok({ id: tag.id });
  } catch (e) {
    return actionFailure(e, ["name", "color"]);
  }
}

export async function updateTagAction(slug: string, id: number, input: unknown): Promise<ActionResult<{ id: number }>> {
  const { workspace } = await requireMember(slug);
  try {
    const tag = await updateTag(workspace, id, parseInput(updateTagSchema, input));
    revalidatePath(page(slug));
    revalidatePath(`/w/${slug}/links`);
    return ok({ id: tag.id });
  } catch (e) {
    return actionFailure(e, ["name", "color"]);
  }
}

export async function deleteTagAction(slug: string, id: number): Promise<ActionResult<{ id: number }>> {
  const { workspace } = await requireMember(slug);
  try {
    await deleteTag(workspace, id);
    revalidatePath(page(slug));
    revalidatePath(`/w/${slug}/links`);
    return ok({ id });
  } catch (e) {
    return actionFailure(e);
  }
}

export async function createUtmTemplateAction(slug: string, input: unknown): Promise<ActionResult<{ id: number }>> {
  const { workspace } = await requireMember(slug);
  try {
    const t = await createUtmTemplate(workspace, parseInput(utmTemplateSchema, input));
    revalidatePath(page(slug));
    return ok({ id: t.id });
  } catch (e) {
    return actionFailure(e, ["name", "utm"]);
  }
}

export async function deleteUtmTemplateAction(slug: string, id: number): Promise<ActionResult<{ id: number }>> {
  const { workspace } = await requireMember(slug);
  try {
    await deleteUtmTemplate(workspace, id);
    revalidatePath(page(slug));
    return ok({ id });
  } catch (e) {
    return actionFailure(e);
  }
}
