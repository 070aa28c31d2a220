-- CreateEnum
CREATE TYPE "SignupMode" AS ENUM ('open', 'invite', 'closed');

-- AlterTable
ALTER TABLE "User" ADD COLUMN     "instanceAdmin" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "InstanceSettings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "signupMode" "SignupMode",
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InstanceSettings_pkey" PRIMARY KEY ("id")
);
