import { db } from "../db/client.ts";

// A session (a JWT cookie) carries the user's session version from when it was issued. Every use
// of the session compares it with the stored one (lib/auth/index.ts, jwt callback), so bumping the
// version ends every session of the user at once: on sign-out and on a password change.

/** The stored session version of a user, or null when the user no longer exists. */
export async function sessionVersionOf(userId: number): Promise<number | null> {
  const u = await db().user.findUnique({ where: { id: userId }, select: { sessionVersion: true } });
  return u ? u.sessionVersion : null;
}

/** Whether a session issued to `userId` with version `version` (absent: issued before versions, 0) is still good. */
export async function sessionIsCurrent(userId: unknown, version: unknown): Promise<boolean> {
  if (typeof userId !== "number" || !Number.isInteger(userId) || userId <= 0) return false;
  const current = await sessionVersionOf(userId);
  return current !== null && current === (typeof version === "number" ? version : 0);
}

/**
 * Ends every session of the user, if the session asking is itself current (a stale copied cookie
 * cannot sign the user out elsewhere). Returns whether anything was ended.
 */
export async function endSessions(userId: unknown, version: unknown): Promise<boolean> {
  if (typeof userId !== "number" || !Number.isInteger(userId) || userId <= 0) return false;
  const r = await db().user.updateMany({
    where: { id: userId, sessionVersion: typeof version === "number" ? version : 0 },
    data: { sessionVersion: { increment: 1 } },
  });
  return r.count > 0;
}
