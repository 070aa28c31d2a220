-- The built-in scheduler claims due deliveries in due order, ties by id (lib/webhooks/sql.ts
-- CLAIM_DUE: WHERE status = 'pending' AND "nextAttemptAt" <= ... ORDER BY "nextAttemptAt", id LIMIT n).
-- A link.clicked backlog shares one nextAttemptAt, so with (status, nextAttemptAt) alone every claim
-- read and sorted the whole backlog to take its first n; with id in the index the claim reads its
-- n rows in order and stops. The new index serves everything the old one did (it is its prefix).

-- DropIndex
DROP INDEX "Delivery_status_nextAttemptAt_idx";

-- CreateIndex
CREATE INDEX "Delivery_status_nextAttemptAt_id_idx" ON "Delivery"("status", "nextAttemptAt", "id");
