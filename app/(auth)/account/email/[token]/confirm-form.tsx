"use client";
import { useActionState } from "react";
import { buttonClass, FormError } from "@/components/ui";
import { confirmEmailChangeAction, type ConfirmEmailState } from "../../email-actions";

const REFUSED: Record<string, string> = {
  taken: "That address is already used by another account. Nothing was changed.",
  expired: "This link has expired. Ask for a new one on your Account page.",
  invalid: "This link is no longer valid: it was used already, or your account changed since it was sent.",
  sign_in: "Sign in with the account that asked for this change, then open the link again.",
};

export function ConfirmEmailForm({ token, email }: { token: string; email: string }) {
  const [state, action, pending] = useActionState<ConfirmEmailState, FormData>(confirmEmailChangeAction, undefined);
  return (
    <form action={action} className="space-y-4">
      <h1 className="text-lg font-semibold">Confirm your new email address</h1>
      <p className="text-sm text-slate-600">
        Use <strong className="break-all">{email}</strong> as your Linkhop account&apos;s address? Every session of the account will be
        signed out.
      </p>
      <FormError message={state ? REFUSED[state.state] : undefined} />
      <input type="hidden" name="token" value={token} />
      <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
        {pending ? "Please wait…" : "Confirm new address"}
      </button>
    </form>
  );
}
