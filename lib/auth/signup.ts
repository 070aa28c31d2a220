import { ServiceError } from "../errors.ts";
import { signupSetting } from "../instance/signup.ts";
import { signUp } from "./users.ts";
import { startPendingSignUp } from "./pending-signup.ts";
import { takeSignUpAttempt, tooManyAttemptsMessage } from "./throttle.ts";
import { sendVerificationMail } from "./verification.ts";

export type SignUpOutcome = ({ state: "created" } & Awaited<ReturnType<typeof signUp>>) | { state: "mailed"; email: string };

/**
 * Sign-up from a client at `address` (the sign-up form, the invitation page), within the
 * per-address limit. Open instance: the account and its first workspace (usable at once, before
 * verifying), then the verification mail; always unverified, also on the invitation page (whoever
 * holds an invitation link may not own its address). Invite-only instance: nothing yet, a mail
 * whose link makes the account (lib/auth/pending-signup.ts). `next` is where the mail's link leads on to.
 */
export async function signUpFrom(address: string | undefined, input: unknown, options: { next?: string } = {}): Promise<SignUpOutcome> {
  const gate = await takeSignUpAttempt(address);
  if (!gate.ok) throw new ServiceError("rate_limit", tooManyAttemptsMessage(gate.retryAfterSeconds));
  if ((await signupSetting()).mode === "invite") return { state: "mailed", ...(await startPendingSignUp(input, options.next)) };
  const result = await signUp(input);
  await sendVerificationMail(result.user.id, options.next);
  return { state: "created", ...result };
}
