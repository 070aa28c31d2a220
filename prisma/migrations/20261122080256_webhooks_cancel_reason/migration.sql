-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "cancelReason" TEXT;
