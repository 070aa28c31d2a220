"use server";
import { z } from "zod";
import { formField } from "@/lib/actions/form";
import { workspaceAction } from "@/lib/actions/workspace";
import { idSchema } from "@/lib/ids";
import { createApiKey, revokeApiKey } from "@/lib/keys";

// API keys: owners and admins create and revoke (keys.manage); members only see the list (the page).

export type CreateKeyState =
  { error?: string; fields?: Record<string, string>; name?: string; created?: { id: number; key: string; name: string } } | undefined;

const createKey = workspaceAction(
  {
    permission: "keys.manage",
    schema: z.object({ name: z.string(), expiresInDays: z.string().nullable() }),
    revalidate: "/settings/api-keys",
    fields: ["name", "expiresInDays"],
  },
  async ({ workspace }, input) => {
    const k = await createApiKey(workspace, input);
    return { id: k.id, key: k.key, name: k.name };
  },
);

// The slug travels in the form, not bound to the action: see formField in lib/actions/form.ts.
export async function createKeyAction(_prev: CreateKeyState, form: FormData): Promise<CreateKeyState> {
  const days = String(form.get("expiresInDays") ?? "").trim();
  const name = String(form.get("name") ?? "");
  const r = await createKey(formField(form, "slug"), { name, expiresInDays: days === "" ? null : days });
  return r.ok ? { created: r.data } : { error: r.error, fields: r.fields, name };
}

const revokeKey = workspaceAction(
  { permission: "keys.manage", schema: z.object({ id: idSchema }), revalidate: "/settings/api-keys" },
  async ({ workspace }, { id }) => revokeApiKey(workspace, id),
);

export async function revokeKeyAction(slug: string, id: number): Promise<{ ok: true } | { ok: false; error: string }> {
  const r = await revokeKey(slug, { id });
  return r.ok ? { ok: true } : { ok: false, error: r.error };
}
