"use server";
import { redirect } from "next/navigation";
import { currentUserId } from "@/lib/auth";
import { ServiceError } from "@/lib/errors";
import { createWorkspace, emailOf } from "@/lib/workspaces";

export type NewWorkspaceState = { error?: string } | undefined;

export async function createWorkspaceAction(_: NewWorkspaceState, form: FormData): Promise<NewWorkspaceState> {
  const userId = await currentUserId();
  if (!userId) redirect("/login");
  const email = await emailOf(userId);
  if (!email) redirect("/login");
  let slug: string;
  try {
    // New workspaces start on the default plan; plans change through billing or the admin CLI.
    slug = (await createWorkspace({ slug: form.get("slug"), name: form.get("name"), owner: email })).slug;
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  redirect(`/w/${slug}`);
}
