-- Sign-ups waiting for their mailbox on an invite-only instance (lib/auth/pending-signup.ts): the
-- address, name and password hash given at sign-up, the SHA-256 of the mailed link's token, where to
-- lead on to, and an expiry. The account is made only when the link is used.
-- CreateTable
CREATE TABLE "PendingSignUp" (
    "id" SERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "next" TEXT,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PendingSignUp_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PendingSignUp_tokenHash_key" ON "PendingSignUp"("tokenHash");

-- CreateIndex
CREATE INDEX "PendingSignUp_email_idx" ON "PendingSignUp"("email");
