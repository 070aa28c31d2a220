-- Saved Analytics views and their read-only share links (lib/analytics/saved-views.ts).
CREATE TABLE "SavedAnalyticsView" (
    "id" SERIAL NOT NULL,
    "workspaceId" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "nameKey" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "createdById" INTEGER,
    "shareTokenHash" TEXT,
    "sharedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SavedAnalyticsView_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "SavedAnalyticsView_shareTokenHash_key" ON "SavedAnalyticsView"("shareTokenHash");
CREATE UNIQUE INDEX "SavedAnalyticsView_workspaceId_nameKey_key" ON "SavedAnalyticsView"("workspaceId", "nameKey");

ALTER TABLE "SavedAnalyticsView" ADD CONSTRAINT "SavedAnalyticsView_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
