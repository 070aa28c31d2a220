"use client";
import Link from "next/link";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { finishSignUpAction, type FinishSignUpState } from "./actions";

export type FinishLinkView = { state: "valid"; email: string } | { state: "problem"; title: string; text: string };

/**
 * The page of the sign-up mail's link: the password chosen at sign-up makes the account. The
 * action's answer is shown also when the link is used up by then (posted without JavaScript, the
 * page is rendered again after the link was used, e.g. for an address no longer invited).
 */
export function FinishSignUpPanel({ token, link }: { token: string; link: FinishLinkView }) {
  const [state, action, pending] = useActionState<FinishSignUpState, FormData>(finishSignUpAction, undefined);
  if (link.state === "problem") {
    return (
      <div className="text-center">
        {state?.error && (
          <div className="mb-4 text-left">
            <FormError message={state.error} />
          </div>
        )}
        <h1 className="text-lg font-semibold">{link.title}</h1>
        <p className="mt-2 text-sm text-slate-600">{link.text}</p>
        <Link href="/login" className={`${buttonClass} mt-6`}>
          Sign in
        </Link>
      </div>
    );
  }
  return (
    <>
      <h1 className="text-lg font-semibold">Finish creating your account</h1>
      <p className="mb-4 mt-1 text-sm text-slate-600">
        For <strong className="break-all">{link.email}</strong>. Enter the password you chose when you signed up.
      </p>
      <form action={action} className="space-y-4" noValidate>
        <input type="hidden" name="token" value={token} />
        {/* for password managers: the account the password belongs to */}
        <input type="email" name="username" autoComplete="username" value={link.email} readOnly hidden />
        <FormError message={state?.error} />
        <Field label="Password" htmlFor="password">
          <input id="password" name="password" type="password" autoComplete="current-password" required autoFocus className={inputClass} />
        </Field>
        <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
          {pending ? "Please wait…" : "Create account"}
        </button>
      </form>
    </>
  );
}
