"use client";
import { useActionState } from "react";
import { buttonClass, Field, FormError, inputClass } from "@/components/ui";
import { createWorkspaceAction } from "./actions";

export function NewWorkspaceForm() {
  const [state, action, pending] = useActionState(createWorkspaceAction, undefined);
  return (
    <form action={action} className="space-y-4">
      <FormError message={state?.error} />
      <Field label="Name" htmlFor="name">
        <input id="name" name="name" required className={inputClass} />
      </Field>
      <Field label="Slug" htmlFor="slug" hint="Used in URLs and webhook events: letters, digits and dashes.">
        <input id="slug" name="slug" required pattern="[a-z0-9-]+" className={inputClass} />
      </Field>
      <button className={buttonClass} disabled={pending}>
        Create workspace
      </button>
    </form>
  );
}
