"use server";
import { AuthError } from "next-auth";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { currentUserId, pendingTokenOf, signIn } from "@/lib/auth";
import { setPendingSignIn } from "@/lib/auth/pending-cookie";
import { changePassword } from "@/lib/auth/account";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { resendVerificationMail } from "@/lib/auth/verification";
import { safeNextPath } from "@/lib/auth/next-path";
import { ServiceError } from "@/lib/errors";

export type PasswordFormState = { error?: string } | undefined;

/** Changes the password (every session ends, this one too), then signs this browser in again. */
export async function changePasswordAction(_: PasswordFormState, form: FormData): Promise<PasswordFormState> {
  const userId = await currentUserId();
  if (!userId) redirect("/login?next=/account");
  const newPassword = String(form.get("newPassword") ?? "");
  let email: string;
  try {
    ({ email } = await changePassword(
      userId,
      { current: String(form.get("current") ?? ""), next: newPassword },
      clientAddressFrom(await headers()),
    ));
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  try {
    await signIn("credentials", { email, password: newPassword, redirect: false });
  } catch (e) {
    // with a second factor, the new password alone gives no session either: its code first
    const pending = pendingTokenOf(e);
    if (pending) {
      await setPendingSignIn(pending);
      redirect(`/login/two-factor?next=${encodeURIComponent("/account?changed=1")}`);
    }
    if (e instanceof AuthError) redirect("/login?next=/account");
    throw e;
  }
  // A fresh page load: this render still carries the old (now ended) session cookie.
  redirect("/account?changed=1");
}

export type ResendState = { error?: string; sent?: boolean } | undefined;

/** "Resend" in the verify-your-email notice; `next` (a path of the app) is where the mail's link leads on to. */
export async function resendVerificationAction(_: ResendState, form: FormData): Promise<ResendState> {
  const userId = await currentUserId();
  if (!userId) return { error: "Sign in again." };
  try {
    await resendVerificationMail(userId, safeNextPath(form.get("next"), null) ?? undefined);
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  return { sent: true };
}
