-- Link routing (forwarding, variants, rules, preview) in one JSON column beside targeting, and the
-- app-link files and redirect URLs of custom domains.
ALTER TABLE "Link" ADD COLUMN "routing" JSONB;

ALTER TABLE "Domain" ADD COLUMN "appleAppSiteAssociation" JSONB,
  ADD COLUMN "assetLinks" JSONB,
  ADD COLUMN "rootUrl" TEXT,
  ADD COLUMN "notFoundUrl" TEXT;
