import { z } from "zod";
import { db, type Tx } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { SELECTABLE_EVENT_TYPES } from "../events/index.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { checkWebhookUrl } from "./guard.ts";
import { newSigningSecret } from "./rules.ts";

// Webhook endpoints of a workspace. Callers authorize (the app: owners and admins; the admin CLI:
// the operator); every function here is scoped by workspace id, so an endpoint id of another
// workspace is simply not found.

// Checked in one refinement (not inside the union) so the message names the unknown types.
export const eventSelectionSchema = z
  .union([z.literal("all"), z.array(z.string())], { message: 'Select "all" or a list of event types.' })
  .superRefine((v, ctx) => {
    if (v === "all") return;
    if (v.length === 0) ctx.addIssue({ code: "custom", message: "Select at least one event type, or all events." });
    const unknown = v.filter((t) => !(SELECTABLE_EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length) {
      ctx.addIssue({
        code: "custom",
        message: `Unknown event type ${unknown.join(", ")}. Types: ${SELECTABLE_EVENT_TYPES.join(", ")}, or all.`,
      });
    }
  });
export type EventSelection = z.infer<typeof eventSelectionSchema>;

const urlSchema = z
  .string({ message: "Enter the endpoint's URL." })
  .trim()
  .min(1, "Enter the endpoint's URL.")
  .max(2000, "Use a URL of at most 2000 characters.");
const descriptionSchema = z.string().trim().max(200, "Use at most 200 characters for the description.");

const createSchema = z.object({ url: urlSchema, description: descriptionSchema.default(""), events: eventSelectionSchema.default("all") });
const updateSchema = z.object({
  url: urlSchema.optional(),
  description: descriptionSchema.optional(),
  events: eventSelectionSchema.optional(),
});

const parse = parseInput;

/** "all" or "t1,t2" (admin CLI) to a selection. */
export function parseEventList(text: string | undefined): EventSelection {
  if (!text || text.trim() === "all") return "all";
  return parse(
    eventSelectionSchema,
    text
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

export type EndpointView = {
  id: number;
  url: string;
  description: string;
  events: EventSelection;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  consecutiveFailures: number;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
};

type EndpointRow = Awaited<ReturnType<ReturnType<typeof db>["webhookEndpoint"]["findFirstOrThrow"]>>;

export function endpointView(e: EndpointRow): EndpointView {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.allEvents ? "all" : e.events,
    enabled: e.enabled,
    disabledAt: e.disabledAt,
    disabledReason: e.disabledReason,
    consecutiveFailures: e.consecutiveFailures,
    failingSince: e.failingSince,
    lastSuccessAt: e.lastSuccessAt,
    createdAt: e.createdAt,
  };
}

function selectionData(events: EventSelection) {
  return events === "all" ? { allEvents: true, events: [] } : { allEvents: false, events: [...new Set(events)] };
}

/** Refuses a URL the guard refuses (https, port 443, no credentials, public addresses only). */
async function checkUrl(url: string): Promise<string> {
  const r = await checkWebhookUrl(url);
  if (!r.ok) throw ServiceError.validation(r.message);
  return r.url.toString();
}

/** Serializes endpoint creation per workspace so the plan's endpoint cap holds under concurrency. */
async function lockWorkspace(tx: Tx, workspaceId: number) {
  await tx.$executeRaw`SELECT 1 FROM "Workspace" WHERE id = ${workspaceId} FOR UPDATE`;
}

export async function createEndpoint(workspaceId: number, input: unknown): Promise<EndpointView & { secret: string }> {
  const { url, description, events } = parse(createSchema, input);
  const ws = await db().workspace.findUnique({ where: { id: workspaceId } });
  if (!ws) throw ServiceError.notFound("Workspace not found.");
  const plan = planOf(ws.plan);
  if (!webhooksAllowed(plan))
    throw ServiceError.feature("Webhooks", `The ${plan.name} plan does not include webhooks. Upgrade to add endpoints.`);
  const normalized = await checkUrl(url);
  const row = await db().$transaction(async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const count = await tx.webhookEndpoint.count({ where: { workspaceId } });
    if (count >= plan.webhookEndpoints) {
      throw ServiceError.limit(`The ${plan.name} plan allows ${plan.webhookEndpoints} webhook endpoints; remove one to add another.`);
    }
    return tx.webhookEndpoint.create({
      data: { workspaceId, url: normalized, description, secret: newSigningSecret(), ...selectionData(events) },
    });
  });
  return { ...endpointView(row), secret: row.secret };
}

async function findOwned(workspaceId: number, id: number): Promise<EndpointRow> {
  const e = isId(id) ? await db().webhookEndpoint.findFirst({ where: { id, workspaceId } }) : null;
  if (!e) throw ServiceError.notFound("No such webhook endpoint.");
  return e;
}

export async function listEndpoints(workspaceId: number): Promise<EndpointView[]> {
  const rows = await db().webhookEndpoint.findMany({ where: { workspaceId }, orderBy: { id: "asc" } });
  return rows.map(endpointView);
}

export async function getEndpoint(workspaceId: number, id: number): Promise<EndpointView> {
  return endpointView(await findOwned(workspaceId, id));
}

/** Edits url, description and selected events (allowed on any plan, so a downgrade can be tidied up). */
export async function updateEndpoint(workspaceId: number, id: number, input: unknown): Promise<EndpointView> {
  const patch = parse(updateSchema, input);
  const current = await findOwned(workspaceId, id);
  const url = patch.url !== undefined && patch.url !== current.url ? await checkUrl(patch.url) : undefined;
  const row = await db().webhookEndpoint.update({
    where: { id: current.id },
    data: {
      ...(url !== undefined ? { url } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.events !== undefined ? selectionData(patch.events) : {}),
    },
  });
  return endpointView(row);
}

/**
 * Turning an endpoint on restarts its failure count; turning it off stops its pending retries
 * (events are not kept for a disabled endpoint).
 */
export async function setEndpointEnabled(workspaceId: number, id: number, enabled: boolean): Promise<EndpointView> {
  const current = await findOwned(workspaceId, id);
  const row = await db().$transaction(async (tx) => {
    if (enabled) {
      return tx.webhookEndpoint.update({
        where: { id: current.id },
        data: { enabled: true, consecutiveFailures: 0, failingSince: null, disabledAt: null, disabledReason: null },
      });
    }
    await tx.delivery.updateMany({
      where: { endpointId: current.id, status: "pending" },
      data: { status: "cancelled", cancelReason: "the endpoint was turned off", nextAttemptAt: null, lockedUntil: null },
    });
    return tx.webhookEndpoint.update({
      where: { id: current.id },
      data: { enabled: false, disabledAt: new Date(), disabledReason: "turned off by a workspace owner or admin" },
    });
  });
  return endpointView(row);
}

export async function revealSecret(workspaceId: number, id: number): Promise<string> {
  return (await findOwned(workspaceId, id)).secret;
}

/** A new signing secret; the next attempt (retries included) is signed with it. */
export async function replaceSecret(workspaceId: number, id: number): Promise<string> {
  const current = await findOwned(workspaceId, id);
  const row = await db().webhookEndpoint.update({ where: { id: current.id }, data: { secret: newSigningSecret() } });
  return row.secret;
}

/** Removes the endpoint with its deliveries and their log. */
export async function deleteEndpoint(workspaceId: number, id: number): Promise<void> {
  const current = await findOwned(workspaceId, id);
  await db().webhookEndpoint.delete({ where: { id: current.id } });
}
