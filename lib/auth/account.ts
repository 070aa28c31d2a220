import { z } from "zod";
import { db } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { passwordSchema } from "./schemas.ts";
import { hashPassword, verifyPassword } from "./password.ts";
import { signInSucceeded, takeSignInAttempt, tooManyAttemptsMessage } from "./throttle.ts";

const changeSchema = z.object({
  current: z.string().min(1, "Enter your current password.").max(200),
  next: passwordSchema,
});

/**
 * Replaces the user's password after checking the current one, and ends every session of the
 * user (the session version goes up in the same update). The caller signs the user in again.
 * Checking the current password counts against the sign-in limits like a sign-in from `address`
 * (a stolen session must not become a way to guess the password).
 */
export async function changePassword(userId: number, input: unknown, address?: string): Promise<{ email: string }> {
  const { current, next } = parseInput(changeSchema, input);
  const user = await db().user.findUnique({ where: { id: userId }, select: { email: true, passwordHash: true, sessionVersion: true } });
  if (!user) throw ServiceError.notFound("Sign in again.");
  if (!user.passwordHash) throw ServiceError.validation("This account signs in with GitHub or Google and has no password to change.");
  const gate = await takeSignInAttempt(user.email, address);
  if (!gate.ok) throw new ServiceError("rate_limit", tooManyAttemptsMessage(gate.retryAfterSeconds));
  if (!(await verifyPassword(current, user.passwordHash)))
    throw ServiceError.validation([{ path: "current", message: "The current password is wrong." }]);
  await signInSucceeded(gate);
  const passwordHash = await hashPassword(next);
  // Conditional on the version read above: two changes at once cannot both pass on one check.
  const r = await db().user.updateMany({
    where: { id: userId, sessionVersion: user.sessionVersion },
    data: { passwordHash, sessionVersion: { increment: 1 } },
  });
  if (r.count === 0) throw ServiceError.conflict("Your sessions changed at the same time. Sign in again.");
  return { email: user.email };
}
