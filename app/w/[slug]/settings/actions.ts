"use server";
import { z } from "zod";
import { formField } from "@/lib/actions/form";
import { workspaceAction } from "@/lib/actions/workspace";
import { renameWorkspace } from "@/lib/workspaces";

export type RenameState = { error?: string; ok?: boolean } | undefined;

const rename = workspaceAction(
  { permission: "workspace.manage", schema: z.object({ name: z.unknown() }), revalidate: { path: "", layout: true } },
  async ({ userId, slug }, { name }) => renameWorkspace(userId, slug, name),
);

// The slug travels in the form, not bound to the action: see formField in lib/actions/form.ts.
export async function renameAction(_: RenameState, form: FormData): Promise<RenameState> {
  const r = await rename(formField(form, "slug"), { name: form.get("name") });
  return r.ok ? { ok: true } : { error: r.error };
}
