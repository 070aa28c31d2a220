"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { ReauthField } from "./reauth-field";
import { requestEmailChangeAction, type EmailChangeState } from "./email-actions";

/** "Email address" on the Account page: the new address and the current password (when the account has one). */
export function EmailChangeForm({ current, hasPassword, recentMinutes }: { current: string; hasPassword: boolean; recentMinutes: number }) {
  const [state, action, pending] = useActionState<EmailChangeState, FormData>(requestEmailChangeAction, undefined);
  return (
    <form action={action} className="space-y-4" noValidate aria-labelledby="email-change-title">
      <h2 id="email-change-title" className="text-base font-semibold">
        Email address
      </h2>
      <p className="text-sm text-slate-600">
        Now <strong className="break-all">{current}</strong>. We mail a link to the new address; the change happens when you open it, and
        then every session of your account is signed out.
      </p>
      {state?.sentTo && (
        <p role="status" className="rounded-md border border-green-200 bg-green-50 px-3 py-2 text-sm text-green-800">
          We sent a link to <strong className="break-all">{state.sentTo}</strong>. Open it to finish the change; until then nothing changes.
        </p>
      )}
      <FormError message={state?.error} />
      <Field label="New email address" htmlFor="new-email">
        <input
          id="new-email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={state?.email}
          key={state?.email ?? ""}
          className={inputClass}
        />
      </Field>
      <ReauthField id="email-password" hasPassword={hasPassword} recentMinutes={recentMinutes} />
      <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
        {pending ? "Please wait…" : "Send confirmation link"}
      </button>
    </form>
  );
}
