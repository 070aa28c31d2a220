"use server";
import { headers } from "next/headers";
import { formField } from "@/lib/actions/form";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { resetPassword } from "@/lib/auth/password-reset";
import { ServiceError } from "@/lib/errors";

export type ResetPasswordState = { error?: string; done?: boolean } | undefined;

/** Sets the new password with the link's token (a hidden field: lib/actions/form.ts says why not bound). */
export async function resetPasswordAction(_: ResetPasswordState, form: FormData): Promise<ResetPasswordState> {
  try {
    await resetPassword(formField(form, "token"), { password: formField(form, "password") }, clientAddressFrom(await headers()));
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message };
    throw e;
  }
  return { done: true };
}
