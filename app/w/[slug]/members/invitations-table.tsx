"use client";
import { useMutation } from "@tanstack/react-query";
import { formatDate } from "@/components/dates";
import { useRouter } from "next/navigation";
import type { InvitationRow } from "@/lib/members/invitations";
import { runAction as run } from "@/components/run-action";
import { useToast } from "@/components/toast";
import { Card, secondaryButtonClass } from "@/components/ui";
import { revokeInvitationAction } from "./actions";
import { ROLE_LABEL } from "./roles";

/** Invitations not yet accepted, each with a Revoke button. */
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
                  {ROLE_LABEL[inv.role]} · expires {formatDate(inv.expiresAt)}
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
