-- The one-time setup link that makes the first instance administrator (lib/instance/setup-link.ts).
ALTER TABLE "InstanceSettings" ADD COLUMN "setupTokenHash" TEXT;
ALTER TABLE "InstanceSettings" ADD COLUMN "setupTokenExpiresAt" TIMESTAMPTZ(3);
