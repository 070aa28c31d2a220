"use client";
import { useActionState } from "react";
import { buttonClass, dangerButtonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { confirmTwoFactorAction, disableTwoFactorAction, startTwoFactorAction, type TwoFactorFormState } from "./two-factor-actions";

function CodeInput({ id, label, hint }: { id: string; label: string; hint?: string }) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      <input
        id={id}
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        required
        maxLength={64}
        className={`${inputClass} font-mono tracking-widest`}
      />
    </Field>
  );
}

export function StartTwoFactorForm({ label, secondary }: { label: string; secondary?: boolean }) {
  const [state, action, pending] = useActionState<TwoFactorFormState, FormData>(startTwoFactorAction, undefined);
  return (
    <form action={action} className="space-y-3">
      <FormError message={state?.error} />
      <button type="submit" disabled={pending} className={`${secondary ? secondaryButtonClass : buttonClass} w-full`}>
        {pending ? "Please wait…" : label}
      </button>
    </form>
  );
}

export function ConfirmTwoFactorForm() {
  const [state, action, pending] = useActionState<TwoFactorFormState, FormData>(confirmTwoFactorAction, undefined);
  if (state?.recoveryCodes) return <RecoveryCodes codes={state.recoveryCodes} />;
  return (
    <form action={action} className="space-y-3" noValidate>
      <FormError message={state?.error} />
      <CodeInput id="totp-confirm-code" label="Code from your app" hint="Enter the 6-digit code your app shows now." />
      <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
        {pending ? "Checking…" : "Turn on"}
      </button>
    </form>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <div role="status" className="space-y-3 rounded-md border border-green-200 bg-green-50 px-3 py-3 text-sm text-green-900">
      <p>
        <strong>The second factor is on.</strong> Save these recovery codes somewhere safe: each signs you in once without your phone. They
        are shown only now.
      </p>
      <ul aria-label="Recovery codes" className="grid grid-cols-2 gap-1 font-mono text-slate-900">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <a href="/account" className={`${secondaryButtonClass} w-full`}>
        I saved them
      </a>
    </div>
  );
}

export function DisableTwoFactorForm() {
  const [state, action, pending] = useActionState<TwoFactorFormState, FormData>(disableTwoFactorAction, undefined);
  return (
    <form action={action} className="space-y-3" noValidate>
      <FormError message={state?.error} />
      <Field label="Code to turn it off" htmlFor="totp-disable-code" hint="A code from your app, or one of your recovery codes.">
        <input
          id="totp-disable-code"
          name="code"
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          required
          maxLength={64}
          className={`${inputClass} font-mono`}
        />
      </Field>
      <button type="submit" disabled={pending} className={`${dangerButtonClass} w-full`}>
        {pending ? "Checking…" : "Turn off second factor"}
      </button>
    </form>
  );
}
