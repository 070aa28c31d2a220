"use client";
import { useActionState } from "react";
import { buttonClass, FormError, secondaryButtonClass } from "@/components/ui";
import { secondFactorRequiredAction, type SecondFactorRequiredState } from "./actions";

/** The owner's switch: a button that turns the requirement on or off (the form says which). */
export function SecondFactorRequiredForm({ slug, required }: { slug: string; required: boolean }) {
  const [state, action, pending] = useActionState<SecondFactorRequiredState, FormData>(secondFactorRequiredAction, undefined);
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="slug" value={slug} />
      <input type="hidden" name="require" value={required ? "off" : "on"} />
      <FormError message={state?.error} />
      <button className={required ? secondaryButtonClass : buttonClass} disabled={pending}>
        {pending ? "Saving…" : required ? "Stop requiring a second factor" : "Require a second factor"}
      </button>
    </form>
  );
}
