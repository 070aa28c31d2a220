import { ServiceError } from "../errors.ts";
import { signUp } from "../workspaces/index.ts";
import { takeSignUpAttempt, tooManyAttemptsMessage } from "./throttle.ts";
import { sendVerificationMail } from "./verification.ts";

/**
 * Sign-up from a client at `address` (the sign-up form, the invitation page): within the
 * per-address limit, the account and its first workspace (usable at once, before verifying),
 * then the verification mail. Always unverified, also on the invitation page (whoever holds an
 * invitation link may not own its address); `next` is where the mail's link leads on to.
 */
export async function signUpFrom(address: string | undefined, input: unknown, options: { next?: string } = {}) {
  const gate = await takeSignUpAttempt(address);
  if (!gate.ok) throw new ServiceError("rate_limit", tooManyAttemptsMessage(gate.retryAfterSeconds));
  const result = await signUp(input);
  await sendVerificationMail(result.user.id, options.next);
  return result;
}
