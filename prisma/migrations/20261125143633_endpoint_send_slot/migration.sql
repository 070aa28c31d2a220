-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "sendSlotAt" TIMESTAMPTZ(6);
