"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { MemberRow } from "@/lib/members";
import { runAction as run } from "@/components/run-action";
import { ConfirmAction } from "@/components/confirm-action";
import { useToast } from "@/components/toast";
import { Badge, Card, secondaryButtonClass } from "@/components/ui";
import { changeRoleAction, removeMemberAction, transferOwnershipAction } from "./actions";
import { ROLE_LABEL, type Role } from "./roles";

/** The members: role changes, removal (or leaving), and handing over ownership. */
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
  async function act(p: NonNullable<typeof pending>) {
    if (p.kind === "remove") return { ...(await run(removeMemberAction(slug, { id: p.member.id }))), kind: p.kind };
    await run(transferOwnershipAction(slug, { id: p.member.id }));
    return { kind: p.kind, email: p.member.email, self: false };
  }

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
      <ConfirmAction
        open={pending !== null}
        setOpen={(open) => !open && setPending(null)}
        action={() => act(pending!)}
        onDone={(r) => {
          setPending(null);
          if (r.kind === "remove" && r.self) {
            toast("You left the workspace");
            router.push("/");
            return;
          }
          toast(r.kind === "remove" ? `${r.email} removed` : `${r.email} is now the owner; you are an admin`);
          router.refresh();
        }}
        title={
          pending?.kind === "transfer"
            ? `Transfer ownership to ${pending.member.email}?`
            : pending?.member.id === me
              ? "Leave this workspace?"
              : `Remove ${pending?.member.email}?`
        }
        confirmLabel={pending?.kind === "transfer" ? "Transfer ownership" : pending?.member.id === me ? "Leave" : "Remove member"}
      >
        {pending?.kind === "transfer"
          ? "They become an owner and you become an admin. Only an owner can undo this."
          : pending?.member.id === me
            ? "You lose access to its links and settings until someone adds you again."
            : "They lose access to this workspace at once. Links they created stay."}
      </ConfirmAction>
    </Card>
  );
}
