import { z } from "zod";
import { db } from "../db/client.ts";
import type { DeliveryStatus } from "../db/generated/enums.ts";
import { idParam } from "../http/params.ts";

// The delivery log of one endpoint for the Developers page: deliveries (newest first), each with
// every attempt, filterable by delivery status and event type.

export const DELIVERY_STATUSES = ["pending", "delivered", "failed", "cancelled"] as const;

export const logFilterSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional().catch(undefined),
  type: z
    .string()
    .max(100)
    .regex(/^[a-z_.]+$/)
    .optional()
    .catch(undefined),
  before: idParam.optional().catch(undefined),
});
export type LogFilter = z.infer<typeof logFilterSchema>;

export type LogAttempt = {
  id: number;
  number: number;
  manual: boolean;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: string;
  error: string | null;
  responseBody: string;
};

export type LogDelivery = {
  id: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  cancelReason: string | null;
  isTest: boolean;
  /** body: the request body every attempt sends (the same bytes each time, Resend included) */
  event: { id: string; type: string; createdAt: Date; body: string };
  attemptLog: LogAttempt[];
};

export async function deliveryLog(
  workspaceId: number,
  endpointId: number,
  filter: LogFilter,
  pageSize = 25,
): Promise<{ deliveries: LogDelivery[]; nextBefore: number | null }> {
  const rows = await db().delivery.findMany({
    where: {
      endpointId,
      endpoint: { workspaceId },
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.type ? { event: { type: filter.type } } : {}),
      ...(filter.before ? { id: { lt: filter.before } } : {}),
    },
    orderBy: { id: "desc" },
    take: pageSize + 1,
    select: {
      id: true,
      status: true,
      attempts: true,
      nextAttemptAt: true,
      cancelReason: true,
      isTest: true,
      event: { select: { id: true, type: true, createdAt: true, body: true } },
      attemptLog: {
        orderBy: { id: "desc" },
        select: {
          id: true,
          number: true,
          manual: true,
          startedAt: true,
          durationMs: true,
          statusCode: true,
          outcome: true,
          error: true,
          responseBody: true,
        },
      },
    },
  });
  const deliveries = rows.slice(0, pageSize);
  return { deliveries, nextBefore: rows.length > pageSize ? deliveries[deliveries.length - 1].id : null };
}
