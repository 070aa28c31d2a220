"use server";
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { currentUserId, signIn, signInErrorMessage, signOut } from "@/lib/auth";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { signUpFrom } from "@/lib/auth/signup";
import { ServiceError } from "@/lib/errors";
import { acceptInvitation, claimWithInvitation, lookupInvitation } from "@/lib/members/invitations";
import { userIdByEmail } from "@/lib/workspaces";

export type InviteFormState = { error?: string } | undefined;

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

/** Signed in with the invited email: accept. */
export async function acceptAction(token: string): Promise<InviteFormState> {
  const userId = await currentUserId();
  if (!userId) return { error: "Sign in first." };
  return acceptAndGo(userId, token);
}

/** No account yet: create one with the invited email (it also gets its own workspace), then accept. */
export async function signUpAndAcceptAction(token: string, _: InviteFormState, form: FormData): Promise<InviteFormState> {
  const inv = await lookupInvitation(token);
  if (inv.state !== "pending") return { error: "This invitation can no longer be used." };
  const password = String(form.get("password") ?? "");
  const name = String(form.get("name") ?? "");
  let userId: number;
  try {
    const input = { email: inv.email, password, name: name || undefined };
    userId = (await signUpFrom(clientAddressFrom(await headers()), input, { viaInvitation: true })).user.id;
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  try {
    await signIn("credentials", { email: inv.email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: "Your account was created, but signing in failed. Sign in to accept." };
    throw e;
  }
  return acceptAndGo(userId, token);
}

/** An account exists: sign in with the invited email, then accept. */
export async function signInAndAcceptAction(token: string, _: InviteFormState, form: FormData): Promise<InviteFormState> {
  const inv = await lookupInvitation(token);
  if (inv.state !== "pending") return { error: "This invitation can no longer be used." };
  const password = String(form.get("password") ?? "");
  if (!password) return { error: "Enter your password." };
  try {
    await signIn("credentials", { email: inv.email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: signInErrorMessage(e, "Wrong password.") };
    throw e;
  }
  const userId = await currentUserIdAfterSignIn(inv.email);
  return acceptAndGo(userId, token);
}

/**
 * An account has the invited address but never verified it: the invitee (who got the mail) sets
 * its password, which verifies it and ends every other session (lib/members/invitations.ts).
 */
export async function claimAndAcceptAction(token: string, _: InviteFormState, form: FormData): Promise<InviteFormState> {
  const password = String(form.get("password") ?? "");
  let claimed: { slug: string; email: string };
  try {
    claimed = await claimWithInvitation(token, password);
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  try {
    await signIn("credentials", { email: claimed.email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError)
      return { error: signInErrorMessage(e, "You joined, but signing in failed. Sign in with your new password.") };
    throw e;
  }
  redirect(`/w/${claimed.slug}?joined=1`);
}

// The session cookie set by signIn is not readable in the same request; look the user up by email.
async function currentUserIdAfterSignIn(email: string): Promise<number> {
  const id = await userIdByEmail(email);
  if (id === null) throw new Error(`no account ${email} right after signing in`);
  return id;
}

export async function switchAccountAction(token: string) {
  await signOut({ redirect: false });
  redirect(`/invite/${token}`);
}
