"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { changePasswordAction, type PasswordFormState } from "./actions";

export function PasswordForm() {
  const [state, action, pending] = useActionState<PasswordFormState, FormData>(changePasswordAction, undefined);
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormError message={state?.error} />
      <Field label="Current password" htmlFor="current">
        <input id="current" name="current" type="password" autoComplete="current-password" required className={inputClass} />
      </Field>
      <Field label="New password" htmlFor="newPassword" hint="At least 8 characters.">
        <input id="newPassword" name="newPassword" type="password" autoComplete="new-password" required className={inputClass} />
      </Field>
      <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
        {pending ? "Please wait…" : "Change password"}
      </button>
    </form>
  );
}
