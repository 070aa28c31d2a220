"use server";
import { revalidatePath } from "next/cache";
import { currentUserId } from "@/lib/auth";
import { ServiceError } from "@/lib/errors";
import { renameWorkspace } from "@/lib/workspaces";

export type RenameState = { error?: string; ok?: boolean } | undefined;

export async function renameAction(slug: string, _: RenameState, form: FormData): Promise<RenameState> {
  const userId = await currentUserId();
  if (!userId) return { error: "Sign in again." };
  try {
    await renameWorkspace(userId, slug, form.get("name"));
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  revalidatePath(`/w/${slug}`, "layout");
  return { ok: true };
}
