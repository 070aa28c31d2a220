import { db } from "../db/client.ts";
import { isId } from "../ids.ts";
import { ServiceError } from "../errors.ts";
import { newEventId, serializeEnvelope } from "../events/index.ts";
import { assertWritable } from "../workspaces/writable.ts";
import { attemptDelivery, type AttemptResult } from "./attempt.ts";

// Attempts made by hand: the Test button (webhook.test to one endpoint, one attempt, never
// retried) and Resend (one attempt now of an existing delivery: same event id, same bytes).

export const TEST_MESSAGE = "This is a test event from Linkhop. Your endpoint is receiving webhooks.";

/** Sends webhook.test to one endpoint (of `workspaceId` when given; the admin CLI passes none). */
export async function sendTestEvent(endpointId: number, workspaceId?: number): Promise<AttemptResult & { eventId: string }> {
  const ep = isId(endpointId)
    ? await db().webhookEndpoint.findFirst({
        where: { id: endpointId, ...(workspaceId !== undefined ? { workspaceId } : {}) },
        include: { workspace: true },
      })
    : null;
  if (!ep) throw ServiceError.notFound("No such webhook endpoint.");
  await assertWritable(ep.workspaceId);
  const id = newEventId();
  const at = new Date();
  const delivery = await db().$transaction(async (tx) => {
    await tx.webhookEvent.create({
      data: {
        id,
        workspaceId: ep.workspaceId,
        type: "webhook.test",
        createdAt: at,
        body: serializeEnvelope(id, "webhook.test", at, ep.workspace, { message: TEST_MESSAGE }),
      },
    });
    return tx.delivery.create({ data: { eventId: id, endpointId: ep.id, isTest: true, nextAttemptAt: null }, select: { id: true } });
  });
  return { ...(await attemptDelivery(delivery.id, { manual: true })), eventId: id };
}

/** One attempt now of an existing delivery, logged like any other (marked manual). */
export async function resendDelivery(workspaceId: number, deliveryId: number): Promise<AttemptResult> {
  const d = isId(deliveryId)
    ? await db().delivery.findFirst({ where: { id: deliveryId, endpoint: { workspaceId } }, select: { id: true } })
    : null;
  if (!d) throw ServiceError.notFound("No such delivery.");
  await assertWritable(workspaceId);
  return attemptDelivery(d.id, { manual: true });
}
