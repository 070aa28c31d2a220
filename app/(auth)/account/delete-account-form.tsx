"use client";
import { useActionState } from "react";
import { dangerButtonClass, FormError } from "@/components/ui";
import { ReauthField } from "./reauth-field";
import { deleteAccountAction, type DeleteAccountState } from "./delete-actions";

/**
 * The deletion form. Each workspace deleted with the account is a checkbox the user ticks (the
 * second confirmation: naming what goes); the server refuses while any is unticked.
 */
export function DeleteAccountForm({
  hasPassword,
  doomed,
  recentMinutes,
}: {
  hasPassword: boolean;
  doomed: { slug: string; name: string; links: number }[];
  recentMinutes: number;
}) {
  const [state, action, pending] = useActionState<DeleteAccountState, FormData>(deleteAccountAction, undefined);
  return (
    <form action={action} className="space-y-4" noValidate>
      <FormError message={state?.error} />
      {doomed.length > 0 && (
        <fieldset className="space-y-2">
          <legend className="text-sm font-medium text-slate-700">
            You are the only member of {doomed.length === 1 ? "this workspace" : "these workspaces"};{" "}
            {doomed.length === 1 ? "it is" : "they are"} deleted with your account, with links, API keys, domains and webhooks. Tick each to
            agree:
          </legend>
          {doomed.map((w) => (
            <label key={w.slug} className="flex items-start gap-2 text-sm text-slate-700">
              <input type="checkbox" name="confirm" value={w.slug} className="mt-0.5 h-4 w-4 shrink-0" />
              <span className="break-words">
                Delete <strong>{w.name}</strong> ({w.slug}) and its {w.links === 1 ? "1 link" : `${w.links} links`}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <ReauthField id="delete-password" hasPassword={hasPassword} recentMinutes={recentMinutes} />
      <button type="submit" disabled={pending} className={`${dangerButtonClass} w-full`}>
        {pending ? "Deleting…" : "Delete my account"}
      </button>
    </form>
  );
}
