"use server";
import { z } from "zod";
import { formField } from "@/lib/actions/form";
import { workspaceAction } from "@/lib/actions/workspace";
import { renameWorkspace, setSecondFactorRequired } from "@/lib/workspaces";

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

export type SecondFactorRequiredState = { error?: string; ok?: boolean } | undefined;

const requireSecondFactor = workspaceAction(
  { permission: "security.manage", schema: z.object({ require: z.boolean() }), revalidate: "/settings" },
  async (ctx, input) => setSecondFactorRequired(ctx, input),
);

/** Workspace settings: require (or stop requiring) a second factor from every member. */
export async function secondFactorRequiredAction(_: SecondFactorRequiredState, form: FormData): Promise<SecondFactorRequiredState> {
  const r = await requireSecondFactor(formField(form, "slug"), { require: formField(form, "require") === "on" });
  return r.ok ? { ok: true } : { error: r.error };
}
