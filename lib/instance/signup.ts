import { z } from "zod";
import { config } from "../config/index.ts";
import { db, type Tx } from "../db/client.ts";
import type { SignupMode } from "../db/generated/enums.ts";
import { parseInput, ServiceError } from "../errors.ts";

// Who may create an account: anyone ("open"), only someone with a pending invitation to an active
// workspace ("invite"), or nobody ("closed": the admin CLI's user:create still makes accounts). Set
// on the Instance page (one row, InstanceSettings id 1); until then SIGNUP_MODE decides. Every way
// of creating an account in the app (the sign-up form, the invitation page, a first OAuth or OpenID
// Connect sign-in) goes through signUp in lib/auth/users.ts, which asks assertSignUpAllowed in its transaction.
// On an invite-only instance the form and the invitation page first mail a link to the address
// (lib/auth/pending-signup.ts); the account is made only when that link is used.

export const SIGNUP_MODES = ["open", "invite", "closed"] as const;
export type { SignupMode };

export const CLOSED_MESSAGE = "Sign-up is closed on this Linkhop. Ask its administrator for an account.";
export const INVITE_ONLY_MESSAGE =
  "Sign-up on this Linkhop is by invitation only. Open the invitation link you received, or ask a workspace owner to invite this address.";

/** Why a sign-up was refused by the instance's setting (the login page words each for OAuth). */
export class SignUpRefused extends ServiceError {
  constructor(readonly mode: Exclude<SignupMode, "open">) {
    super("forbidden", mode === "closed" ? CLOSED_MESSAGE : INVITE_ONLY_MESSAGE);
  }
}

export type SignupSetting = { mode: SignupMode; source: "instance" | "environment"; environmentDefault: SignupMode };

/** The mode in force, and whether the Instance page set it or SIGNUP_MODE does. */
export async function signupSetting(tx?: Tx): Promise<SignupSetting> {
  const row = await (tx ?? db()).instanceSettings.findUnique({ where: { id: 1 }, select: { signupMode: true } });
  const environmentDefault = config().SIGNUP_MODE;
  return row?.signupMode
    ? { mode: row.signupMode, source: "instance", environmentDefault }
    : { mode: environmentDefault, source: "environment", environmentDefault };
}

const setSchema = z.object({ mode: z.enum(SIGNUP_MODES, { message: "Choose open, invite or closed." }) });

/** Sets the mode (the Instance page, after authorizeInstance). */
export async function setSignupMode(input: unknown): Promise<SignupSetting> {
  const { mode } = parseInput(setSchema, input);
  await db().instanceSettings.upsert({ where: { id: 1 }, create: { id: 1, signupMode: mode }, update: { signupMode: mode } });
  return signupSetting();
}

/**
 * Throws SignUpRefused unless an account for `email` (normalised) may be created now. On an
 * invite-only instance the address must have a pending invitation AND its mailbox must have
 * confirmed the sign-up (`mailboxConfirmed`: the mailed link of lib/auth/pending-signup.ts, or an
 * OAuth provider vouching for the address): whoever holds an invitation link (the inviter too) does
 * not own its address, and an account they made could outlive the invitation.
 */
export async function assertSignUpAllowed(tx: Tx, email: string, options: { mailboxConfirmed?: boolean } = {}): Promise<void> {
  const { mode } = await signupSetting(tx);
  if (mode === "open") return;
  if (mode === "closed") throw new SignUpRefused("closed");
  const invited = await tx.invitation.findFirst({
    where: { email, acceptedAt: null, expiresAt: { gt: new Date() }, workspace: { active: true } },
    select: { id: true },
  });
  if (!invited || !options.mailboxConfirmed) throw new SignUpRefused("invite");
}
