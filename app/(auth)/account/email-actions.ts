"use server";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { currentSession, currentUserId } from "@/lib/auth";
import { clientAddressFrom } from "@/lib/auth/client-address";
import { confirmEmailChange, requestEmailChange, type EmailChangeOutcome } from "@/lib/auth/email-change";
import { formField } from "@/lib/actions/form";
import { ServiceError } from "@/lib/errors";

/** `email`: what was typed, given back so the form shows it again after a refusal. */
export type EmailChangeState = { error?: string; sentTo?: string; email?: string } | undefined;

/** Account page: asks for the change; the link goes to the new address (lib/auth/email-change.ts). */
export async function requestEmailChangeAction(_: EmailChangeState, form: FormData): Promise<EmailChangeState> {
  const session = await currentSession();
  if (!session) redirect("/login?next=/account");
  const typed = formField(form, "email").slice(0, 254);
  try {
    const { email } = await requestEmailChange(
      session.userId,
      { email: typed, password: formField(form, "password") },
      { signedInAt: session.signedInAt, address: clientAddressFrom(await headers()) },
    );
    return { sentTo: email };
  } catch (e) {
    if (e instanceof ServiceError) return { error: e.message, email: typed };
    throw e;
  }
}

export type ConfirmEmailState = Exclude<EmailChangeOutcome, { state: "changed" }> | undefined;

/**
 * The mailed link's page: the token travels in a hidden field (lib/actions/form.ts). Done, every
 * session has ended, so the login page follows (the link's page would now say the link is used).
 */
export async function confirmEmailChangeAction(_: ConfirmEmailState, form: FormData): Promise<ConfirmEmailState> {
  const outcome = await confirmEmailChange(formField(form, "token"), await currentUserId());
  if (outcome.state === "changed") redirect("/login?emailChanged=1");
  return outcome;
}
