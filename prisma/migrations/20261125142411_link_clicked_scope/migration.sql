-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "clickFolders" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "clickLinkIds" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
ADD COLUMN     "clickTagIds" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
