-- The built-in scheduler claims each endpoint's due deliveries apart (lib/webhooks/sql.ts
-- CLAIM_DUE, lib/webhooks/due.ts PENDING_ENDPOINTS_CTE): a skip scan finds the endpoints with
-- pending deliveries, then each one's first due rows are read in due order, ties by id. The index
-- on (status, nextAttemptAt, id) it replaces served one walk over every due delivery in due order,
-- which read a held or paced endpoint's whole backlog on every claim. Partial (pending automatic
-- deliveries only, which Prisma's schema cannot state): a delivery leaves it when it is delivered,
-- failed or cancelled, so the index stays the size of the work waiting, and the other reads of
-- an endpoint's pending deliveries (the backlog page, cancelling on disable) use it too.

-- DropIndex
DROP INDEX "Delivery_status_nextAttemptAt_id_idx";

-- CreateIndex
CREATE INDEX "Delivery_endpointId_nextAttemptAt_id_idx" ON "Delivery"("endpointId", "nextAttemptAt", "id")
  WHERE "status" = 'pending' AND "isTest" = false;
