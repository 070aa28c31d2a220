"use client";
import { useActionState } from "react";
import { buttonClass, FormError } from "@/components/ui";
import { becomeOperatorAction, type SetupFormState } from "./actions";

export function BecomeOperatorButton({ token }: { token: string }) {
  const [state, action, pending] = useActionState<SetupFormState, FormData>(becomeOperatorAction, undefined);
  return (
    <form action={action} className="space-y-3">
      <input type="hidden" name="token" value={token} />
      <FormError message={state?.error} />
      <button className={`${buttonClass} w-full`} disabled={pending} autoFocus>
        {pending ? "Setting up…" : "Become the instance administrator"}
      </button>
    </form>
  );
}
