"use client";
import { useActionState } from "react";
import { resendVerificationAction, type ResendState } from "./actions";

/**
 * A quiet line at the top of the app until the account's address is verified. `next`: a path the
 * resent mail's link leads on to; `children` replaces the opening sentence.
 */
export function VerifyEmailNotice({ email, next, children }: { email: string; next?: string; children?: React.ReactNode }) {
  const [state, action, pending] = useActionState<ResendState, FormData>(resendVerificationAction, undefined);
  return (
    <form
      action={action}
      className="mb-4 flex flex-wrap items-center gap-x-2 gap-y-1 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm text-slate-700"
    >
      {next && <input type="hidden" name="next" value={next} />}
      <span>
        {children ?? (
          <>
            Verify your email: we sent a link to <strong>{email}</strong>.
          </>
        )}
      </span>
      {state?.sent ? (
        <span role="status" className="text-green-700">
          Sent again.
        </span>
      ) : (
        <button type="submit" disabled={pending} className="font-medium text-brand-600 hover:underline disabled:opacity-50">
          {pending ? "Sending…" : "Resend"}
        </button>
      )}
      {state?.error && (
        <span role="alert" className="text-red-700">
          {state.error}
        </span>
      )}
    </form>
  );
}
