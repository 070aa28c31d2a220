"use server";
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { currentUserId, pendingTokenOf, signIn, signInErrorMessage, signOut } from "@/lib/auth";
import { setPendingSignIn } from "@/lib/auth/pending-cookie";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { signUpFrom, type SignUpOutcome } from "@/lib/auth/signup";
import { CHECK_MAIL_PATH } from "@/lib/auth/pending-signup";
import { unverifiedEmailOf } from "@/lib/auth/verification";
import { formField } from "@/lib/actions/form";
import { ServiceError } from "@/lib/errors";
import { acceptInvitation, lookupInvitation } from "@/lib/members/invitations";
import { userIdByEmail } from "@/lib/workspaces";

export type InviteFormState = { error?: string } | undefined;

// The forms' actions take the token from a hidden field, not bound to them: see lib/actions/form.ts.

const invitePath = (token: string) => `/invite/${token}`;

async function acceptAndGo(userId: number, token: string): Promise<InviteFormState> {
  let slug: string;
  try {
    slug = (await acceptInvitation(userId, token)).slug;
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  redirect(`/w/${slug}?joined=1`);
}

/**
 * Just signed in as the invited address: accept when the address is verified; otherwise back to
 * the invitation, which asks to confirm the address by mail first.
 */
async function continueSignedIn(userId: number, token: string): Promise<InviteFormState> {
  if (await unverifiedEmailOf(userId)) redirect(invitePath(token));
  return acceptAndGo(userId, token);
}

/** Signed in with the invited email: accept. */
export async function acceptAction(_: InviteFormState, form: FormData): Promise<InviteFormState> {
  const userId = await currentUserId();
  if (!userId) return { error: "Sign in first." };
  return acceptAndGo(userId, formField(form, "token"));
}

/**
 * No account yet: create one with the invited email (it also gets its own workspace, and a mail
 * whose link confirms the address and leads back here to accept). On an invite-only instance the
 * mail's link creates the account instead, and leads back here.
 */
export async function signUpAndAcceptAction(_: InviteFormState, form: FormData): Promise<InviteFormState> {
  const token = formField(form, "token");
  const inv = await lookupInvitation(token);
  if (inv.state !== "pending") return { error: "This invitation can no longer be used." };
  const password = String(form.get("password") ?? "");
  const name = String(form.get("name") ?? "");
  let result: SignUpOutcome;
  try {
    const input = { email: inv.email, password, name: name || undefined };
    result = await signUpFrom(clientAddressFrom(await headers()), input, { next: invitePath(token) });
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  // invite-only: no account until the mailed link is used (it leads back here)
  if (result.state === "mailed") redirect(CHECK_MAIL_PATH);
  const userId = result.user.id;
  try {
    await signIn("credentials", { email: inv.email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: "Your account was created, but signing in failed. Sign in to accept." };
    throw e;
  }
  return continueSignedIn(userId, token);
}

/** An account exists: sign in with the invited email, then accept. */
export async function signInAndAcceptAction(_: InviteFormState, form: FormData): Promise<InviteFormState> {
  const token = formField(form, "token");
  const inv = await lookupInvitation(token);
  if (inv.state !== "pending") return { error: "This invitation can no longer be used." };
  const password = String(form.get("password") ?? "");
  if (!password) return { error: "Enter your password." };
  try {
    await signIn("credentials", { email: inv.email, password, redirect: false });
  } catch (e) {
    // a second factor: its code first, then back here to accept
    const pending = pendingTokenOf(e);
    if (pending) {
      await setPendingSignIn(pending);
      redirect(`/login/two-factor?next=${encodeURIComponent(invitePath(token))}`);
    }
    if (e instanceof AuthError) return { error: signInErrorMessage(e, "Wrong password.") };
    throw e;
  }
  return continueSignedIn(await currentUserIdAfterSignIn(inv.email), token);
}

// The session cookie set by signIn is not readable in the same request; look the user up by email.
async function currentUserIdAfterSignIn(email: string): Promise<number> {
  const id = await userIdByEmail(email);
  if (id === null) throw new Error(`no account ${email} right after signing in`);
  return id;
}

export async function switchAccountAction(form: FormData) {
  await signOut({ redirect: false });
  redirect(invitePath(encodeURIComponent(formField(form, "token"))));
}
