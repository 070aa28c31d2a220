"use client";
import { useActionState, useEffect } from "react";
import { buttonClass, Field, inputClass } from "@/components/ui";
import { useToast } from "@/components/toast";
import { renameAction, type RenameState } from "./actions";

export function RenameForm({ slug, name, disabled }: { slug: string; name: string; disabled: boolean }) {
  const [state, action, pending] = useActionState<RenameState, FormData>(renameAction, undefined);
  const toast = useToast();
  useEffect(() => {
    if (state?.ok) toast("Workspace renamed");
  }, [state, toast]);
  return (
    <form action={action} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <input type="hidden" name="slug" value={slug} />
      <div className="flex-1">
        <Field
          label="Workspace name"
          htmlFor="ws-name"
          error={state?.error}
          hint={disabled ? "Only owners and admins can rename the workspace." : undefined}
        >
          <input id="ws-name" name="name" defaultValue={name} disabled={disabled} className={inputClass} aria-invalid={!!state?.error} />
        </Field>
      </div>
      <button className={buttonClass} disabled={disabled || pending}>
        Save
      </button>
    </form>
  );
}
