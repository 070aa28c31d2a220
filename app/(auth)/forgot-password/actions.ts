"use server";
import { headers } from "next/headers";
import { formField } from "@/lib/actions/form";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { requestPasswordReset } from "@/lib/auth/password-reset";
import { ServiceError } from "@/lib/errors";

// `sent` is all a successful answer carries, so the page is the same whether or not an account
// has the address (lib/auth/password-reset.ts does the same work either way).
export type ForgotPasswordState = { error?: string; email?: string; sent?: boolean } | undefined;

export async function requestResetAction(_: ForgotPasswordState, form: FormData): Promise<ForgotPasswordState> {
  const email = formField(form, "email");
  try {
    await requestPasswordReset(clientAddressFrom(await headers()), { email });
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message, email };
    throw e;
  }
  return { sent: true };
}
