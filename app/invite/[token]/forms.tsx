"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { acceptAction, claimAndAcceptAction, signInAndAcceptAction, signUpAndAcceptAction, type InviteFormState } from "./actions";

export function AcceptButton({ token, workspace }: { token: string; workspace: string }) {
  const [state, action, pending] = useActionState<InviteFormState, FormData>(() => acceptAction(token), undefined);
  return (
    <form action={action} className="space-y-3">
      <FormError message={state?.error} />
      <button className={`${buttonClass} w-full`} disabled={pending} autoFocus>
        {pending ? "Joining…" : `Accept and join ${workspace}`}
      </button>
    </form>
  );
}

const ACTIONS = { signup: signUpAndAcceptAction, signin: signInAndAcceptAction, claim: claimAndAcceptAction };

/** signup: no account yet; signin: a verified account; claim: an account that never verified the address. */
export function InviteAuthForm({ token, email, mode }: { token: string; email: string; mode: "signin" | "signup" | "claim" }) {
  const [state, action, pending] = useActionState<InviteFormState, FormData>(ACTIONS[mode].bind(null, token), undefined);
  const newPassword = mode !== "signin";
  return (
    <form action={action} className="space-y-4" noValidate>
      <p className="text-sm text-slate-700">
        {mode === "signup"
          ? "Create your Linkhop account to accept."
          : mode === "claim"
            ? "A Linkhop account with this address exists, but the address was never confirmed. This invitation reached your inbox, so set a new password for the account to accept (any other sign-in to it ends)."
            : "You already have a Linkhop account. Sign in to accept."}
      </p>
      <FormError message={state?.error} />
      <Field label="Email" htmlFor="invite-email">
        <input id="invite-email" value={email} readOnly className={`${inputClass} bg-slate-50`} autoComplete="email" />
      </Field>
      {mode === "signup" && (
        <Field label="Name (optional)" htmlFor="invite-name">
          <input id="invite-name" name="name" autoComplete="name" className={inputClass} />
        </Field>
      )}
      <Field label="Password" htmlFor="invite-password" hint={newPassword ? "At least 8 characters." : undefined}>
        <input
          id="invite-password"
          name="password"
          type="password"
          required
          autoFocus
          autoComplete={newPassword ? "new-password" : "current-password"}
          className={inputClass}
        />
      </Field>
      <button className={`${buttonClass} w-full`} disabled={pending}>
        {pending
          ? "Please wait…"
          : mode === "signup"
            ? "Create account and join"
            : mode === "claim"
              ? "Set password and join"
              : "Sign in and join"}
      </button>
    </form>
  );
}
