"use server";
import { revalidatePath } from "next/cache";
import { addDomain, removeDomain, verifyDomain, type DomainView } from "@/lib/domains";
import { actionFailure, ok, type ActionResult } from "@/lib/actions/result";
import { requireMember } from "../access";

async function manager(slug: string) {
  const m = await requireMember(slug, "admin");
  if (!m.allowed) return null;
  return m;
}
const forbidden = { ok: false as const, code: "forbidden", error: "Only owners and admins can manage domains." };

export async function addDomainAction(slug: string, host: string): Promise<ActionResult<DomainView>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const d = await addDomain(m.workspace, host);
    revalidatePath(`/w/${slug}/domains`);
    return ok(d);
  } catch (e) {
    return actionFailure(e);
  }
}

export async function verifyDomainAction(slug: string, id: number): Promise<ActionResult<{ verified: boolean; message: string }>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const r = await verifyDomain(m.workspace, id);
    if (r.verified) revalidatePath(`/w/${slug}/domains`);
    return ok({ verified: r.verified, message: r.message });
  } catch (e) {
    return actionFailure(e);
  }
}

export async function removeDomainAction(slug: string, id: number): Promise<ActionResult<{ host: string }>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const r = await removeDomain(m.workspace, id);
    revalidatePath(`/w/${slug}/domains`);
    return ok({ host: r.host });
  } catch (e) {
    return actionFailure(e);
  }
}
