"use server";
import { AuthError } from "next-auth";
import { redirect } from "next/navigation";
import { signIn } from "@/lib/auth";
import { formField } from "@/lib/actions/form";
import { safeNextPath } from "@/lib/auth/next-path";
import { finishPendingSignUp } from "@/lib/auth/pending-signup";
import { ServiceError } from "@/lib/errors";

export type FinishSignUpState = { error?: string } | undefined;

/** Makes the account with the link's token (a hidden field: lib/actions/form.ts says why not bound) and signs in. */
export async function finishSignUpAction(_: FinishSignUpState, form: FormData): Promise<FinishSignUpState> {
  const password = formField(form, "password");
  let made: Awaited<ReturnType<typeof finishPendingSignUp>>;
  try {
    made = await finishPendingSignUp(formField(form, "token"), password);
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  try {
    await signIn("credentials", { email: made.email, password, redirect: false });
  } catch (e) {
    if (e instanceof AuthError) return { error: "Your account was created, but signing in failed. Sign in." };
    throw e;
  }
  redirect(safeNextPath(made.next, null) ?? `/w/${made.slug}`);
}
