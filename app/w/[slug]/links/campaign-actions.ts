"use server";
import { revalidatePath } from "next/cache";
import { parseLinkInput, retagLinks, retagLinksSchema } from "@/lib/links";
import { actionFailure, ok, type ActionResult } from "@/lib/actions/result";
import { requireMember } from "../access";

// Bulk tag editing on the Links page, through the link service (same events as a PATCH of tags).
export async function retagLinksAction(slug: string, input: unknown): Promise<ActionResult<{ changed: number }>> {
  const { workspace } = await requireMember(slug);
  try {
    const result = await retagLinks(workspace, parseLinkInput(retagLinksSchema, input));
    revalidatePath(`/w/${slug}/links`, "layout");
    return ok(result);
  } catch (e) {
    return actionFailure(e);
  }
}
