-- Click batches applied by the click pipeline's writer (lib/clicks/batches.ts): each flush records its
-- batch's id in the transaction that writes it, so a batch replayed from the click journal after a
-- commit whose acknowledgement was lost is recognised and skipped (every click is applied once).
-- CreateTable
CREATE TABLE "ClickBatch" (
    "id" UUID NOT NULL,
    "appliedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClickBatch_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ClickBatch_appliedAt_idx" ON "ClickBatch"("appliedAt");
