"use server";
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { pendingTokenOf, signIn, signInErrorMessage, signOut } from "@/lib/auth";
import { clearPendingSignIn, pendingSignIn, setPendingSignIn } from "@/lib/auth/pending-cookie";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { safeNextPath } from "@/lib/auth/next-path";
import { signUpFrom, type SignUpOutcome } from "@/lib/auth/signup";
import { CHECK_MAIL_PATH } from "@/lib/auth/pending-signup";
import { ServiceError } from "@/lib/errors";

export type FormState = { error?: string; email?: string } | undefined;

export async function signInAction(_: FormState, form: FormData): Promise<FormState> {
  const email = String(form.get("email") ?? "");
  const password = String(form.get("password") ?? "");
  if (!email.trim() || !password) return { error: "Enter your email and password.", email };
  try {
    await signIn("credentials", { email, password, redirect: false });
  } catch (e) {
    const pending = pendingTokenOf(e);
    if (pending) await goToSecondStep(pending, form.get("next"));
    if (e instanceof AuthError) return { error: signInErrorMessage(e, "Wrong email or password."), email };
    throw e;
  }
  redirect(safeNextPath(form.get("next")));
}

/** The password was right and the account has a second factor: on to the code, with the pending sign-in in a cookie. */
async function goToSecondStep(pending: string, next: unknown): Promise<never> {
  await setPendingSignIn(pending);
  const path = safeNextPath(next, null);
  redirect(path ? `/login/two-factor?next=${encodeURIComponent(path)}` : "/login/two-factor");
}

export type CodeFormState = { error?: string } | undefined;

/** The second step: the code (or a recovery code) for the sign-in waiting in the cookie. */
export async function secondFactorAction(_: CodeFormState, form: FormData): Promise<CodeFormState> {
  const code = String(form.get("code") ?? "").trim();
  if (!code) return { error: "Enter the code from your authenticator app." };
  const pending = await pendingSignIn();
  if (!pending) return { error: "This sign-in took too long. Sign in again." };
  try {
    await signIn("credentials", { pending, code, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: signInErrorMessage(e, "That code is not right, or your sign-in took too long.") };
    throw e;
  }
  await clearPendingSignIn();
  redirect(safeNextPath(form.get("next")));
}

export async function signUpAction(_: FormState, form: FormData): Promise<FormState> {
  const email = String(form.get("email") ?? "");
  const password = String(form.get("password") ?? "");
  const name = String(form.get("name") ?? "");
  let result: SignUpOutcome;
  try {
    result = await signUpFrom(clientAddressFrom(await headers()), { email, password, name: name || undefined });
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message, email };
    throw e;
  }
  // invite-only: no account until the mailed link is used
  if (result.state === "mailed") redirect(CHECK_MAIL_PATH);
  try {
    await signIn("credentials", { email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: "Your account was created, but signing in failed. Try signing in.", email };
    throw e;
  }
  const next = safeNextPath(form.get("next"));
  redirect(next !== "/" ? next : `/w/${result.workspace.slug}`);
}

/** Ends every session of the user (see lib/auth/session.ts), not only this browser's cookie. */
export async function signOutAction() {
  await signOut({ redirect: false });
  redirect("/login");
}

export async function oauthSignInAction(form: FormData) {
  const provider = String(form.get("provider"));
  await signIn(provider, { redirectTo: safeNextPath(form.get("next")) });
}
