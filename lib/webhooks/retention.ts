import { db } from "../db/client.ts";
import { LOG_RETENTION_MS } from "./rules.ts";

/**
 * Removes the delivery log older than 30 days: attempts by their time, events (with their
 * deliveries) by when they happened. Run daily; safe to run from several processes.
 */
export async function pruneDeliveryLog(now = new Date()): Promise<{ attempts: number; events: number }> {
  const cutoff = new Date(now.getTime() - LOG_RETENTION_MS);
  const attempts = await db().deliveryAttempt.deleteMany({ where: { startedAt: { lt: cutoff } } });
  const events = await db().webhookEvent.deleteMany({ where: { createdAt: { lt: cutoff } } });
  return { attempts: attempts.count, events: events.count };
}
