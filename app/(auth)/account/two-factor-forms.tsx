"use client";
import { useActionState } from "react";
import { buttonClass, dangerButtonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { ReauthField } from "./reauth-field";
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

/**
 * An enrolment waiting for its first code: the QR code and the key, the code field and "start
 * again"; once the code is right, only the recovery codes (this answer is the one place they are shown).
 */
export function TwoFactorEnrolment({
  secret,
  qrSvg,
  hasPassword,
  recentMinutes,
}: {
  secret: string;
  qrSvg: string;
  hasPassword: boolean;
  recentMinutes: number;
}) {
  const [state, action, pending] = useActionState<TwoFactorFormState, FormData>(confirmTwoFactorAction, undefined);
  if (state?.recoveryCodes) return <RecoveryCodes codes={state.recoveryCodes} />;
  return (
    <div className="mt-1 space-y-4">
      <p className="text-sm text-slate-600">Scan this QR code with your authenticator app, or type the key below into it.</p>
      {/* an SVG made on the server from the otpauth:// address; the key below says the same in text */}
      <div
        role="img"
        aria-label="QR code of the key for your authenticator app"
        className="mx-auto w-48 [&>svg]:h-auto [&>svg]:w-full"
        dangerouslySetInnerHTML={{ __html: qrSvg }}
      />
      <div>
        <p className="text-sm font-medium text-slate-700">Key</p>
        <p data-testid="totp-secret" className="mt-1 rounded-md bg-slate-50 px-3 py-2 font-mono text-sm">
          {secret.match(/.{1,4}/g)?.map((group, i) => (
            <span key={i} className="whitespace-nowrap">
              {i > 0 ? " " : ""}
              {group}
            </span>
          ))}
        </p>
        <p className="mt-1 text-xs text-slate-500">Time-based, 6 digits, every 30 seconds.</p>
      </div>
      <form action={action} className="space-y-3" noValidate>
        <FormError message={state?.error} />
        <CodeInput id="totp-confirm-code" label="Code from your app" hint="Enter the 6-digit code your app shows now." />
        <ReauthField id="totp-confirm-password" hasPassword={hasPassword} recentMinutes={recentMinutes} />
        <button type="submit" disabled={pending} className={`${buttonClass} w-full`}>
          {pending ? "Checking…" : "Turn on"}
        </button>
      </form>
      <StartTwoFactorForm label="Start again with a new key" secondary />
    </div>
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
