-- One host may be pending in several workspaces (each with its own TXT token); it is verified in at
-- most one: verifiedHost is the host once verified, null while pending.

-- DropIndex
DROP INDEX "Domain_host_key";

-- DropIndex
DROP INDEX "Domain_workspaceId_idx";

-- AlterTable
ALTER TABLE "Domain" ADD COLUMN     "verifiedHost" TEXT;

-- Domains verified before this migration keep their host.
UPDATE "Domain" SET "verifiedHost" = "host" WHERE "verifiedAt" IS NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Domain_verifiedHost_key" ON "Domain"("verifiedHost");

-- CreateIndex
CREATE INDEX "Domain_host_idx" ON "Domain"("host");

-- CreateIndex
CREATE UNIQUE INDEX "Domain_workspaceId_host_key" ON "Domain"("workspaceId", "host");
