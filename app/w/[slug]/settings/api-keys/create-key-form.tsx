"use client";
import { useActionState, useState } from "react";
import { CopyField } from "@/components/copy-button";
import { buttonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { createKeyAction, type CreateKeyState } from "./actions";

/** Name and optional expiry; the new key is shown once, with a copy button. */
export function CreateKeyForm({ slug, atCap, capMessage }: { slug: string; atCap: boolean; capMessage: string }) {
  const [state, action, pending] = useActionState<CreateKeyState, FormData>(createKeyAction, undefined);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const created = state?.created && state.created.id !== dismissed ? state.created : null;

  if (created) {
    return (
      <div className="space-y-3" data-testid="new-api-key">
        <p role="status" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Copy the key now. It is shown only this once; Linkhop keeps just a hash of it.
        </p>
        <CopyField label={created.name ? `Key "${created.name}"` : "New key"} value={created.key} what="API key" />
        <button type="button" className={secondaryButtonClass} onClick={() => setDismissed(created.id)}>
          Done
        </button>
      </div>
    );
  }
  return (
    <form action={action} className="space-y-4">
      <input type="hidden" name="slug" value={slug} />
      <FormError message={state?.error ?? (atCap ? capMessage : null)} />
      <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <Field label="Name" htmlFor="key-name" hint="What uses this key, e.g. “CRM sync”." error={state?.fields?.name}>
          <input
            id="key-name"
            name="name"
            required
            maxLength={80}
            defaultValue={state?.name}
            aria-invalid={state?.fields?.name ? true : undefined}
            aria-describedby={state?.fields?.name ? "key-name-error" : undefined}
            className={inputClass}
            placeholder="CRM sync"
          />
        </Field>
        <Field label="Expires after (days)" htmlFor="key-expiry" hint="Leave empty for no expiry." error={state?.fields?.expiresInDays}>
          <input
            id="key-expiry"
            name="expiresInDays"
            aria-invalid={state?.fields?.expiresInDays ? true : undefined}
            aria-describedby={state?.fields?.expiresInDays ? "key-expiry-error" : undefined}
            type="number"
            min={1}
            max={3650}
            step={1}
            inputMode="numeric"
            className={inputClass}
          />
        </Field>
      </div>
      <button className={buttonClass} disabled={pending || atCap}>
        {pending ? "Creating…" : "Create key"}
      </button>
    </form>
  );
}
