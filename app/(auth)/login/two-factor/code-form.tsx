"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { secondFactorAction, type CodeFormState } from "../../actions";

export function CodeForm({ next, recovery }: { next?: string; recovery: boolean }) {
  const [state, action, pending] = useActionState<CodeFormState, FormData>(secondFactorAction, undefined);
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormError message={state?.error} />
      {next && <input type="hidden" name="next" value={next} />}
      {recovery ? (
        <Field label="Recovery code" htmlFor="code" hint="Like abcd-efgh-jkmn.">
          <input
            id="code"
            name="code"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            required
            autoFocus
            className={`${inputClass} font-mono`}
          />
        </Field>
      ) : (
        <Field label="Code" htmlFor="code">
          <input
            id="code"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]*"
            maxLength={8}
            required
            autoFocus
            className={`${inputClass} font-mono tracking-widest`}
          />
        </Field>
      )}
      <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
        {pending ? "Checking…" : "Sign in"}
      </button>
    </form>
  );
}
