"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { InviteResult } from "@/lib/members/invitations";
import { runAction as run } from "@/components/run-action";
import { CopyField } from "@/components/copy-button";
import { Dialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { buttonClass, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import { addExistingAction, inviteAction } from "./actions";
import type { Role } from "./roles";

/** The "Invite member" button and its dialog: invite by email, or add an existing account. */
export function InviteButton({ slug, isOwner }: { slug: string; isOwner: boolean }) {
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<"invite" | "add">("invite");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [sent, setSent] = useState<InviteResult | null>(null);
  const router = useRouter();
  const toast = useToast();
  const submit = useMutation({
    mutationFn: async () => {
      if (mode === "invite") return { kind: "invite" as const, result: await run(inviteAction(slug, { email, role })) };
      await run(addExistingAction(slug, { email, role }));
      return { kind: "add" as const };
    },
    onSuccess: (r) => {
      router.refresh();
      if (r.kind === "invite") {
        setSent(r.result);
        toast(
          r.result.mailed ? `Invitation sent to ${r.result.email}` : `Invitation created; the email could not be sent`,
          r.result.mailed ? "success" : "error",
        );
      } else {
        toast(`${email} added`);
        close();
      }
    },
  });
  function close() {
    setOpen(false);
    setSent(null);
    setEmail("");
    setRole("member");
    submit.reset();
  }
  const tab = (m: typeof mode, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={mode === m}
      onClick={() => {
        setMode(m);
        submit.reset();
      }}
      className={`rounded-md px-3 py-1.5 text-sm font-medium ${mode === m ? "bg-white text-slate-900 shadow-sm" : "text-slate-600 hover:text-slate-900"}`}
    >
      {label}
    </button>
  );
  return (
    <>
      <button type="button" className={buttonClass} onClick={() => setOpen(true)}>
        Invite member
      </button>
      <Dialog open={open} onClose={close} title={sent ? "Invitation sent" : "Add people to the workspace"}>
        {sent ? (
          <div className="space-y-4">
            <p className="text-sm text-slate-700">
              {sent.mailed ? (
                <>
                  We emailed <strong>{sent.email}</strong> a link to join as {sent.role}. It works once and expires in 7 days.
                </>
              ) : (
                <>
                  The email to <strong>{sent.email}</strong> could not be sent. Pass them this link yourself; it works once and expires in 7
                  days.
                </>
              )}
            </p>
            <CopyField label="Invitation link" value={sent.url} what="Invitation link" />
            <div className="flex justify-end gap-2">
              <button
                type="button"
                className={secondaryButtonClass}
                onClick={() => {
                  setSent(null);
                  setEmail("");
                  submit.reset();
                }}
              >
                Invite another
              </button>
              <button type="button" className={buttonClass} onClick={close}>
                Done
              </button>
            </div>
          </div>
        ) : (
          <form
            noValidate
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              submit.mutate();
            }}
          >
            <div role="tablist" aria-label="How to add" className="inline-flex rounded-lg bg-slate-100 p-1">
              {tab("invite", "Invite by email")}
              {tab("add", "Add existing account")}
            </div>
            <p className="text-sm text-slate-600">
              {mode === "invite"
                ? "They get an email with a link to join. New to Linkhop? They can create an account from the link."
                : "Adds someone who already has a Linkhop account, right away."}
            </p>
            <FormError message={submit.error?.message} />
            <Field label="Email" htmlFor="invite-email">
              <input
                id="invite-email"
                type="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                autoComplete="off"
                className={inputClass}
                placeholder="teammate@example.com"
              />
            </Field>
            <Field label="Role" htmlFor="invite-role">
              <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)} className={inputClass}>
                <option value="member">Member: creates and edits links</option>
                <option value="admin">Admin: also manages members, domains, keys, webhooks</option>
                {isOwner && <option value="owner">Owner: full control</option>}
              </select>
            </Field>
            <div className="flex justify-end gap-2">
              <button type="button" className={secondaryButtonClass} onClick={close}>
                Cancel
              </button>
              <button className={buttonClass} disabled={submit.isPending}>
                {submit.isPending ? "Working…" : mode === "invite" ? "Send invitation" : "Add member"}
              </button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}
