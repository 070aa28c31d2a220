"use client";
import Link from "next/link";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { resetPasswordAction, type ResetPasswordState } from "./actions";

export type ResetLinkView = { state: "valid"; email: string } | { state: "problem"; title: string; text: string };

/**
 * The reset page's content. The action's answer comes first: posted without JavaScript, the page
 * is rendered again after the link was used, and must still say that the password was set.
 */
export function ResetPasswordPanel({ token, link }: { token: string; link: ResetLinkView }) {
  const [state, action, pending] = useActionState<ResetPasswordState, FormData>(resetPasswordAction, undefined);
  if (state?.done) {
    return (
      <div className="text-center">
        <h1 className="text-lg font-semibold">Password set</h1>
        <p role="status" className="mt-2 text-sm text-slate-600">
          Every session of your account was signed out. Sign in with your new password.
        </p>
        <Link href="/login" className={`${buttonClass} mt-6`}>
          Sign in
        </Link>
      </div>
    );
  }
  if (link.state === "problem") {
    return (
      <div className="text-center">
        <h1 className="text-lg font-semibold">{link.title}</h1>
        <p className="mt-2 text-sm text-slate-600">{link.text}</p>
        <Link href="/forgot-password" className={`${buttonClass} mt-6`}>
          Ask for a new link
        </Link>
      </div>
    );
  }
  return (
    <>
      <h1 className="text-lg font-semibold">Set a new password</h1>
      <p className="mb-4 mt-1 text-sm text-slate-600">
        For <strong className="break-all">{link.email}</strong>. Setting it signs out every session of the account.
      </p>
      <form action={action} className="space-y-4" noValidate>
        <input type="hidden" name="token" value={token} />
        {/* for password managers: the account the new password belongs to */}
        <input type="email" name="username" autoComplete="username" value={link.email} readOnly hidden />
        <FormError message={state?.error} />
        <Field label="New password" htmlFor="password" hint="At least 8 characters.">
          <input id="password" name="password" type="password" autoComplete="new-password" required autoFocus className={inputClass} />
        </Field>
        <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
          {pending ? "Please wait…" : "Set password"}
        </button>
      </form>
    </>
  );
}
