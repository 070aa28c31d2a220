"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import type { FormState } from "./actions";

export function AuthForm({
  action,
  mode,
  next,
  initialError,
}: {
  action: (state: FormState, form: FormData) => Promise<FormState>;
  mode: "signin" | "signup";
  next?: string;
  /** Shown until the form is sent (a refusal Auth.js redirected back with). */
  initialError?: string;
}) {
  const [state, formAction, pending] = useActionState(action, undefined);
  return (
    <form action={formAction} className="space-y-4" noValidate>
      <FormError message={state ? state.error : initialError} />
      {next && <input type="hidden" name="next" value={next} />}
      {mode === "signup" && (
        <Field label="Name (optional)" htmlFor="name">
          <input id="name" name="name" autoComplete="name" className={inputClass} />
        </Field>
      )}
      <Field label="Email" htmlFor="email">
        <input id="email" name="email" type="email" autoComplete="email" required defaultValue={state?.email} className={inputClass} />
      </Field>
      <Field label="Password" htmlFor="password" hint={mode === "signup" ? "At least 8 characters." : undefined}>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete={mode === "signup" ? "new-password" : "current-password"}
          required
          className={inputClass}
        />
      </Field>
      <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
        {pending ? "Please wait…" : mode === "signup" ? "Create account" : "Sign in"}
      </button>
    </form>
  );
}
