"use server";
import { revalidatePath } from "next/cache";
import { ServiceError } from "@/lib/errors";
import { createApiKey, revokeApiKey } from "@/lib/keys";
import { requireMember } from "../../access";

// API keys: owners and admins create and revoke; members only see the list (the page).

export type CreateKeyState = { error?: string; created?: { id: number; key: string; name: string } } | undefined;

export async function createKeyAction(slug: string, _prev: CreateKeyState, form: FormData): Promise<CreateKeyState> {
  const { workspace, allowed } = await requireMember(slug, "admin");
  if (!allowed) return { error: "Only owners and admins can create API keys." };
  const days = String(form.get("expiresInDays") ?? "").trim();
  try {
    const k = await createApiKey(workspace, { name: String(form.get("name") ?? ""), expiresInDays: days === "" ? null : days });
    revalidatePath(`/w/${slug}/settings/api-keys`);
    return { created: { id: k.id, key: k.key, name: k.name } };
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
}

export async function revokeKeyAction(slug: string, id: number): Promise<{ ok: true } | { ok: false; error: string }> {
  const { workspace, allowed } = await requireMember(slug, "admin");
  if (!allowed) return { ok: false, error: "Only owners and admins can revoke API keys." };
  try {
    await revokeApiKey(workspace, id);
  } catch (e) {
    if (e instanceof ServiceError) return { ok: false, error: e.message };
    throw e;
  }
  revalidatePath(`/w/${slug}/settings/api-keys`);
  return { ok: true };
}
