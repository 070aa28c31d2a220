"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { acceptAction, signInAndAcceptAction, signUpAndAcceptAction, type InviteFormState } from "./actions";

export function AcceptButton({ token, workspace }: { token: string; workspace: string }) {
  const [state, action, pending] = useActionState<InviteFormState, FormData>(acceptAction, undefined);
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="token" value={token} />
      <FormError message={state?.error} />
      <button className={`${buttonClass} w-full`} disabled={pending} autoFocus>
        {pending ? "Joining…" : `Accept and join ${workspace}`}
      </button>
    </form>
  );
}

export type InviteAuthMode = "signup" | "signin";

/**
 * signup: create an account with the invited address; signin: use the account that has it. The
 * page offers both whatever accounts exist (it must not tell the link's holder, who may be the
 * inviter, whether the address has an account).
 */
export function InviteAuthForm({ token, email, mode }: { token: string; email: string; mode: InviteAuthMode }) {
  const [state, action, pending] = useActionState<InviteFormState, FormData>(
    mode === "signup" ? signUpAndAcceptAction : signInAndAcceptAction,
    undefined,
  );
  const signup = mode === "signup";
  return (
    <form action={action} className="space-y-4" noValidate>
      <input type="hidden" name="token" value={token} />
      <p className="text-sm text-slate-700">
        {signup
          ? "Create your Linkhop account to accept. We will mail a link to this address to confirm it's yours."
          : "Sign in with your Linkhop account for this address to accept."}
      </p>
      <FormError message={state?.error} />
      <Field label="Email" htmlFor="invite-email">
        <input id="invite-email" value={email} readOnly className={`${inputClass} bg-slate-50`} autoComplete="email" />
      </Field>
      {signup && (
        <Field label="Name (optional)" htmlFor="invite-name">
          <input id="invite-name" name="name" autoComplete="name" className={inputClass} />
        </Field>
      )}
      <Field label="Password" htmlFor="invite-password" hint={signup ? "At least 8 characters." : undefined}>
        <input
          id="invite-password"
          name="password"
          type="password"
          required
          autoFocus
          autoComplete={signup ? "new-password" : "current-password"}
          className={inputClass}
        />
      </Field>
      <button className={`${buttonClass} w-full`} disabled={pending}>
        {pending ? "Please wait…" : signup ? "Create account and join" : "Sign in and join"}
      </button>
    </form>
  );
}
