"use server";
import { revalidatePath } from "next/cache";
import {
  createEndpoint,
  deleteEndpoint,
  replaceSecret,
  resendDelivery,
  revealSecret,
  sendTestEvent,
  setEndpointEnabled,
  updateEndpoint,
  type AttemptResult,
  type EndpointView,
} from "@/lib/webhooks";
import { actionFailure, ok, type ActionResult } from "@/lib/actions/result";
import { requireMember } from "../access";

// The Developers page's actions: owners and admins only, each scoped to the workspace in the URL.

async function manager(slug: string) {
  const m = await requireMember(slug, "admin");
  return m.allowed ? m : null;
}
const forbidden = { ok: false as const, code: "forbidden", error: "Only owners and admins can manage webhooks." };

export type EndpointInput = { url: string; description: string; events: "all" | string[] };
export type AttemptSummary = Pick<AttemptResult, "attempted" | "delivered" | "outcome" | "statusCode" | "message">;

const summary = (r: AttemptResult): AttemptSummary => ({ attempted: r.attempted, delivered: r.delivered, outcome: r.outcome, statusCode: r.statusCode, message: r.message });

export async function createEndpointAction(slug: string, input: EndpointInput): Promise<ActionResult<EndpointView>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const { secret: _secret, ...view } = await createEndpoint(m.workspace.id, input);
    revalidatePath(`/w/${slug}/developers`);
    return ok(view);
  } catch (e) {
    return actionFailure(e);
  }
}

export async function updateEndpointAction(slug: string, id: number, input: EndpointInput): Promise<ActionResult<EndpointView>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const view = await updateEndpoint(m.workspace.id, id, input);
    revalidatePath(`/w/${slug}/developers`, "layout");
    return ok(view);
  } catch (e) {
    return actionFailure(e);
  }
}

export async function setEnabledAction(slug: string, id: number, enabled: boolean): Promise<ActionResult<EndpointView>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const view = await setEndpointEnabled(m.workspace.id, id, enabled);
    revalidatePath(`/w/${slug}/developers`, "layout");
    return ok(view);
  } catch (e) {
    return actionFailure(e);
  }
}

export async function deleteEndpointAction(slug: string, id: number): Promise<ActionResult<{ id: number }>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    await deleteEndpoint(m.workspace.id, id);
    revalidatePath(`/w/${slug}/developers`);
    return ok({ id });
  } catch (e) {
    return actionFailure(e);
  }
}

export async function revealSecretAction(slug: string, id: number): Promise<ActionResult<string>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    return ok(await revealSecret(m.workspace.id, id));
  } catch (e) {
    return actionFailure(e);
  }
}

export async function replaceSecretAction(slug: string, id: number): Promise<ActionResult<string>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    return ok(await replaceSecret(m.workspace.id, id));
  } catch (e) {
    return actionFailure(e);
  }
}

export async function sendTestAction(slug: string, id: number): Promise<ActionResult<AttemptSummary>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const r = await sendTestEvent(id, m.workspace.id);
    revalidatePath(`/w/${slug}/developers/${id}`);
    return ok(summary(r));
  } catch (e) {
    return actionFailure(e);
  }
}

export async function resendAction(slug: string, endpointId: number, deliveryId: number): Promise<ActionResult<AttemptSummary>> {
  const m = await manager(slug);
  if (!m) return forbidden;
  try {
    const r = await resendDelivery(m.workspace.id, deliveryId);
    revalidatePath(`/w/${slug}/developers/${endpointId}`);
    return ok(summary(r));
  } catch (e) {
    return actionFailure(e);
  }
}
