import { Field, inputClass } from "@/components/ui";

/**
 * The "prove it's you" part of a form that changes who owns the account (lib/auth/reauth.ts): the
 * current password, or, for an account without one, a note that a recent sign-in is needed.
 */
export function ReauthField({ id, hasPassword, recentMinutes }: { id: string; hasPassword: boolean; recentMinutes: number }) {
  return hasPassword ? (
    <Field label="Your password" htmlFor={id}>
      <input id={id} name="password" type="password" autoComplete="current-password" required className={inputClass} />
    </Field>
  ) : (
    <p className="text-xs text-slate-500">Your account has no password: this works within {recentMinutes} minutes of signing in.</p>
  );
}
