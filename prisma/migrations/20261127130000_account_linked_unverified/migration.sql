-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "linkedUnverified" BOOLEAN NOT NULL DEFAULT false;
