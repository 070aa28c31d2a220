"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import { renameWorkspace } from "@/lib/workspaces";

export type RenameState = { error?: string; ok?: boolean } | undefined;

const rename = workspaceAction(
  { permission: "workspace.manage", schema: z.object({ name: z.unknown() }), revalidate: { path: "", layout: true } },
  async ({ userId, slug }, { name }) => renameWorkspace(userId, slug, name),
);

export async function renameAction(slug: string, _: RenameState, form: FormData): Promise<RenameState> {
  const r = await rename(slug, { name: form.get("name") });
  return r.ok ? { ok: true } : { error: r.error };
}
