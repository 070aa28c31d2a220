import { z } from "zod";
import { db, type DbOrTx, type Tx } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { isId } from "../ids.ts";
import { BY_NAME_ONLY_EVENT_TYPES, SELECTABLE_EVENT_TYPES } from "../events/index.ts";
import { planOf, webhooksAllowed } from "../plans/index.ts";
import { ALL_LINKS, clickScopeSchema, describeClickScope, resolveClickScope, type ClickScopeView } from "./click-scope.ts";
import { checkWebhookUrl } from "./guard.ts";
import { newSigningSecret } from "./rules.ts";

// Webhook endpoints of a workspace. Callers authorize (the app: owners and admins; the admin CLI:
// the operator); every function here is scoped by workspace id, so an endpoint id of another
// workspace is simply not found.

// Checked in one refinement (not inside the union) so the message names the unknown types. "all"
// leaves out the types received by name only (link.clicked); a list may hold "all" beside them:
// ["all", "link.clicked"] is every type.
export const eventSelectionSchema = z
  .union([z.literal("all"), z.array(z.string())], { message: 'Select "all" or a list of event types.' })
  .superRefine((v, ctx) => {
    if (v === "all") return;
    if (v.length === 0) ctx.addIssue({ code: "custom", message: "Select at least one event type, or all events." });
    const unknown = v.filter((t) => t !== "all" && !(SELECTABLE_EVENT_TYPES as readonly string[]).includes(t));
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

const createSchema = z.object({
  url: urlSchema,
  description: descriptionSchema.default(""),
  events: eventSelectionSchema.default("all"),
  clickScope: clickScopeSchema.optional(),
});
const updateSchema = z.object({
  url: urlSchema.optional(),
  description: descriptionSchema.optional(),
  events: eventSelectionSchema.optional(),
  clickScope: clickScopeSchema.optional(),
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
  /** the links whose clicks link.clicked sends (all when the endpoint does not select it) */
  clickScope: ClickScopeView;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  consecutiveFailures: number;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
};

type EndpointRow = Awaited<ReturnType<ReturnType<typeof db>["webhookEndpoint"]["findFirstOrThrow"]>>;

export async function endpointView(e: EndpointRow): Promise<EndpointView> {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.allEvents ? (e.events.length ? ["all", ...e.events] : "all") : e.events,
    clickScope: await describeClickScope(db(), e),
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
  if (events === "all") return { allEvents: true, events: [] };
  const allEvents = events.includes("all");
  const named = [...new Set(events)].filter((t) => t !== "all" && (!allEvents || BY_NAME_ONLY_EVENT_TYPES.includes(t as never)));
  return { allEvents, events: named };
}

/** The stored scope: the one given while link.clicked is selected, else all links. */
async function scopeData(tx: DbOrTx, workspaceId: number, events: string[], scope: z.infer<typeof clickScopeSchema> | undefined) {
  if (events.includes("link.clicked")) return resolveClickScope(tx, workspaceId, scope);
  if (scope?.folders?.length || scope?.tags?.length || scope?.links?.length)
    throw ServiceError.validation("Folders, tags and links choose the clicks of link.clicked: select link.clicked too.");
  return ALL_LINKS;
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
  const { url, description, events, clickScope } = parse(createSchema, input);
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
    const selection = selectionData(events);
    const scope = await scopeData(tx, workspaceId, selection.events, clickScope);
    return tx.webhookEndpoint.create({
      data: { workspaceId, url: normalized, description, secret: newSigningSecret(), ...selection, ...scope },
    });
  });
  return { ...(await endpointView(row)), secret: row.secret };
}

async function findOwned(workspaceId: number, id: number): Promise<EndpointRow> {
  const e = isId(id) ? await db().webhookEndpoint.findFirst({ where: { id, workspaceId } }) : null;
  if (!e) throw ServiceError.notFound("No such webhook endpoint.");
  return e;
}

export async function listEndpoints(workspaceId: number): Promise<EndpointView[]> {
  const rows = await db().webhookEndpoint.findMany({ where: { workspaceId }, orderBy: { id: "asc" } });
  return Promise.all(rows.map(endpointView));
}

export async function getEndpoint(workspaceId: number, id: number): Promise<EndpointView> {
  return endpointView(await findOwned(workspaceId, id));
}

/** Edits url, description and selected events (allowed on any plan, so a downgrade can be tidied up). */
export async function updateEndpoint(workspaceId: number, id: number, input: unknown): Promise<EndpointView> {
  const patch = parse(updateSchema, input);
  const current = await findOwned(workspaceId, id);
  const url = patch.url !== undefined && patch.url !== current.url ? await checkUrl(patch.url) : undefined;
  const selection = patch.events !== undefined ? selectionData(patch.events) : undefined;
  const events = selection?.events ?? current.events;
  // the scope is kept unless given (or link.clicked is no longer selected)
  const scope =
    patch.clickScope !== undefined || !events.includes("link.clicked")
      ? await scopeData(db(), workspaceId, events, patch.clickScope)
      : undefined;
  const row = await db().webhookEndpoint.update({
    where: { id: current.id },
    data: {
      ...(url !== undefined ? { url } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(selection ?? {}),
      ...(scope ?? {}),
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
