import { db, uniqueViolation } from "../db/client.ts";
import { parseInput, ServiceError } from "../errors.ts";
import { assertSignUpAllowed } from "../instance/signup.ts";
import { createFirstWorkspace } from "../workspaces/index.ts";
import { hashPassword } from "./password.ts";
import { signUpSchema } from "./schemas.ts";

// Where accounts are made. The User table is written only in lib/auth: made here, changed by the
// flows beside this file (verification, password reset and change, change of email, second
// factor, OAuth, sessions) and deleted by delete-account.ts. A sign-up's first workspace is
// lib/workspaces' (createFirstWorkspace), made in the account's transaction.

/**
 * Sign-up: the user, their first workspace (plan free) and the owner membership, in one
 * transaction, when the instance's sign-up mode allows it (lib/instance/signup.ts).
 * `mailboxConfirmed`: the address's owner proved the mailbox (see assertSignUpAllowed), so the
 * account starts verified.
 */
export async function signUp(input: unknown, options: { mailboxConfirmed?: boolean } = {}) {
  const { email, password, name } = parseInput(signUpSchema, input);
  return signUpWithHash({ email, name, passwordHash: await hashPassword(password) }, options);
}

/** signUp with the password already hashed (a sign-up that waited for its mailbox: lib/auth/pending-signup.ts). */
export async function signUpWithHash(
  account: { email: string; name?: string | null; passwordHash: string },
  options: { mailboxConfirmed?: boolean } = {},
) {
  const { email, name, passwordHash } = account;
  try {
    return await db().$transaction(async (tx) => {
      await assertSignUpAllowed(tx, email, options);
      const user = await tx.user.create({
        data: { email, name: name || null, passwordHash, emailVerifiedAt: options.mailboxConfirmed ? new Date() : null },
      });
      const workspace = await createFirstWorkspace(tx, { userId: user.id, email, name });
      return { user: { id: user.id, email: user.email }, workspace };
    });
  } catch (e) {
    if (uniqueViolation(e)) throw ServiceError.conflict("An account with this email already exists. Sign in instead.");
    throw e;
  }
}

/** An account without a workspace (the admin CLI's user:create). */
export async function createUser(input: unknown) {
  const { email, password, name } = parseInput(signUpSchema, input);
  const passwordHash = await hashPassword(password);
  try {
    // Made by the operator (admin CLI), who vouches for the address: verified from the start.
    const user = await db().user.create({ data: { email, name: name || null, passwordHash, emailVerifiedAt: new Date() } });
    return { id: user.id, email: user.email };
  } catch (e) {
    if (uniqueViolation(e)) throw ServiceError.conflict(`A user with email ${email} already exists.`);
    throw e;
  }
}
