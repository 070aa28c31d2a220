-- An accepted invitation used to mark the invitee's address verified (and the invitation page
-- could set the password of an unverified account). The invitation link is also shown to the
-- inviter, so it never proved the mailbox: addresses verified that way are unverified again and
-- their owners confirm them by mail (the app shows its notice with "Resend"). Such a verification
-- was written in the same transaction as the acceptance, moments before it; a verification by
-- mail or by the operator earlier than that is kept.
UPDATE "User" AS u
SET "emailVerifiedAt" = NULL
WHERE u."emailVerifiedAt" IS NOT NULL
  AND EXISTS (
    SELECT 1
    FROM "Invitation" AS i
    WHERE i."email" = u."email"
      AND i."acceptedAt" >= u."emailVerifiedAt"
      AND i."acceptedAt" < u."emailVerifiedAt" + interval '5 seconds'
  );
