"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { SignupMode, SignupSetting } from "@/lib/instance/signup";
import { runAction as run } from "@/components/run-action";
import { useToast } from "@/components/toast";
import { buttonClass, FormError } from "@/components/ui";
import { setSignupModeAction } from "./actions";

const MODES: { mode: SignupMode; label: string; hint: string }[] = [
  { mode: "open", label: "Open", hint: "Anyone can create an account (with a password, or a sign-in provider if one is set up)." },
  {
    mode: "invite",
    label: "By invitation only",
    hint: "Only someone invited to a workspace can create an account, with the invited address.",
  },
  { mode: "closed", label: "Closed", hint: "Nobody can sign up. Accounts come from the admin CLI (user:create)." },
];

/** Who may create an account; the form shows where the current value comes from. */
export function SignupModeForm({ setting }: { setting: SignupSetting }) {
  const router = useRouter();
  const toast = useToast();
  const [mode, setMode] = useState<SignupMode>(setting.mode);
  const save = useMutation({
    mutationFn: () => run(setSignupModeAction({ mode })),
    onSuccess: (r) => {
      toast(`Sign-up is now ${MODES.find((m) => m.mode === r.mode)?.label.toLowerCase()}.`);
      router.refresh();
    },
  });
  return (
    <form
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <fieldset className="space-y-2">
        <legend className="mb-2 text-sm text-slate-600">
          Who may create an account on this Linkhop.{" "}
          {setting.source === "environment"
            ? `Now the default from SIGNUP_MODE (${setting.environmentDefault}).`
            : `Set here; SIGNUP_MODE (${setting.environmentDefault}) applies only until a choice is saved.`}
        </legend>
        {MODES.map((m) => (
          <label
            key={m.mode}
            className="flex cursor-pointer items-start gap-3 rounded-md border border-slate-200 p-3 has-[:checked]:border-brand-500"
          >
            <input type="radio" name="mode" value={m.mode} checked={mode === m.mode} onChange={() => setMode(m.mode)} className="mt-1" />
            <span>
              <span className="block text-sm font-medium">{m.label}</span>
              <span className="block text-xs text-slate-600">{m.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <FormError message={save.error?.message} />
      <button className={buttonClass} disabled={save.isPending || (mode === setting.mode && setting.source === "instance")}>
        {save.isPending ? "Saving…" : "Save sign-up setting"}
      </button>
    </form>
  );
}
