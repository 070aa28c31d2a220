"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { MemberRow } from "@/lib/members";
import type { InvitationRow, InviteResult } from "@/lib/members/invitations";
import { runAction as run } from "@/components/run-action";
import { CopyField } from "@/components/copy-button";
import { ConfirmDialog, Dialog } from "@/components/dialog";
import { useToast } from "@/components/toast";
import { Badge, buttonClass, Card, Field, FormError, inputClass, secondaryButtonClass } from "@/components/ui";
import {
  addExistingAction,
  changeRoleAction,
  inviteAction,
  removeMemberAction,
  revokeInvitationAction,
  transferOwnershipAction,
} from "./actions";

type Role = MemberRow["role"];

const ROLE_LABEL: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };

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

export function MembersTable({ slug, members, me, myRole }: { slug: string; members: MemberRow[]; me: number; myRole: Role }) {
  const router = useRouter();
  const toast = useToast();
  const [pending, setPending] = useState<{ kind: "remove" | "transfer"; member: MemberRow } | null>(null);
  const canManage = myRole !== "member";
  const owners = members.filter((m) => m.role === "owner").length;

  const role = useMutation({
    mutationFn: (v: { id: number; role: Role }) => run(changeRoleAction(slug, { id: v.id, role: v.role })),
    onSuccess: (r) => {
      toast(`${r.email} is now ${r.role === "admin" ? "an admin" : `a ${r.role}`}`);
      router.refresh();
    },
    onError: (e) => {
      toast(e.message, "error");
      router.refresh();
    },
  });
  const act = useMutation({
    mutationFn: async (p: NonNullable<typeof pending>) => {
      if (p.kind === "remove") return { ...(await run(removeMemberAction(slug, { id: p.member.id }))), kind: p.kind };
      await run(transferOwnershipAction(slug, { id: p.member.id }));
      return { kind: p.kind, email: p.member.email, self: false };
    },
    onSuccess: (r) => {
      setPending(null);
      if (r.kind === "remove" && r.self) {
        toast("You left the workspace");
        router.push("/");
        return;
      }
      toast(r.kind === "remove" ? `${r.email} removed` : `${r.email} is now the owner; you are an admin`);
      router.refresh();
    },
  });

  const editable = (m: MemberRow) => canManage && (myRole === "owner" || m.role !== "owner") && !(m.role === "owner" && owners <= 1);

  return (
    <Card title={`${members.length} member${members.length === 1 ? "" : "s"}`}>
      <ul className="divide-y divide-slate-100">
        {members.map((m) => (
          <li key={m.id} className="flex flex-wrap items-center gap-3 py-3">
            <div
              className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-brand-100 text-sm font-semibold text-brand-700"
              aria-hidden
            >
              {(m.name || m.email).slice(0, 1).toUpperCase()}
            </div>
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium">
                {m.name || m.email} {m.id === me && <span className="text-xs font-normal text-slate-500">(you)</span>}
              </p>
              {m.name && <p className="truncate text-xs text-slate-500">{m.email}</p>}
            </div>
            <div className="flex items-center gap-2">
              {editable(m) ? (
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  disabled={role.isPending}
                  onChange={(e) => role.mutate({ id: m.id, role: e.target.value as Role })}
                  className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
                >
                  {(myRole === "owner" ? (["owner", "admin", "member"] as Role[]) : (["admin", "member"] as Role[])).map((r) => (
                    <option key={r} value={r}>
                      {ROLE_LABEL[r]}
                    </option>
                  ))}
                </select>
              ) : (
                <Badge tone={m.role === "owner" ? "blue" : "slate"}>{ROLE_LABEL[m.role]}</Badge>
              )}
              {myRole === "owner" && m.id !== me && m.role !== "owner" && (
                <button type="button" className={secondaryButtonClass} onClick={() => setPending({ kind: "transfer", member: m })}>
                  Make owner
                </button>
              )}
              {((canManage && m.id !== me && (myRole === "owner" || m.role !== "owner")) ||
                (m.id === me && !(m.role === "owner" && owners <= 1))) && (
                <button
                  type="button"
                  className={secondaryButtonClass}
                  onClick={() => setPending({ kind: "remove", member: m })}
                  aria-label={m.id === me ? "Leave workspace" : `Remove ${m.email}`}
                >
                  {m.id === me ? "Leave" : "Remove"}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={pending !== null}
        onClose={() => {
          setPending(null);
          act.reset();
        }}
        onConfirm={() => pending && act.mutate(pending)}
        title={
          pending?.kind === "transfer"
            ? `Transfer ownership to ${pending.member.email}?`
            : pending?.member.id === me
              ? "Leave this workspace?"
              : `Remove ${pending?.member.email}?`
        }
        confirmLabel={pending?.kind === "transfer" ? "Transfer ownership" : pending?.member.id === me ? "Leave" : "Remove member"}
        pending={act.isPending}
        error={act.error?.message}
      >
        {pending?.kind === "transfer"
          ? "They become an owner and you become an admin. Only an owner can undo this."
          : pending?.member.id === me
            ? "You lose access to its links and settings until someone adds you again."
            : "They lose access to this workspace at once. Links they created stay."}
      </ConfirmDialog>
    </Card>
  );
}

export function InvitationsTable({ slug, invitations }: { slug: string; invitations: InvitationRow[] }) {
  const router = useRouter();
  const toast = useToast();
  const revoke = useMutation({
    mutationFn: (inv: InvitationRow) => run(revokeInvitationAction(slug, { id: inv.id })).then(() => inv),
    onSuccess: (inv) => {
      toast(`Invitation for ${inv.email} revoked`);
      router.refresh();
    },
    onError: (e) => toast(e.message, "error"),
  });
  return (
    <Card title="Pending invitations">
      {invitations.length === 0 ? (
        <p className="text-sm text-slate-500">No pending invitations. Invitations expire after 7 days.</p>
      ) : (
        <ul className="divide-y divide-slate-100">
          {invitations.map((inv) => (
            <li key={inv.id} className="flex flex-wrap items-center gap-3 py-3">
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-medium">{inv.email}</p>
                <p className="text-xs text-slate-500">
                  {ROLE_LABEL[inv.role]} · expires {new Date(inv.expiresAt).toLocaleDateString("en", { dateStyle: "medium" })}
                  {inv.invitedBy && ` · invited by ${inv.invitedBy}`}
                </p>
              </div>
              <button
                type="button"
                className={secondaryButtonClass}
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(inv)}
                aria-label={`Revoke invitation for ${inv.email}`}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
