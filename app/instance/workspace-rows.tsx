"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { DirectoryRow } from "@/lib/workspaces/directory";
import { ConfirmAction } from "@/components/confirm-action";
import { ProgressBar } from "@/components/progress";
import { runAction as run } from "@/components/run-action";
import { useToast } from "@/components/toast";
import { Badge, secondaryButtonClass } from "@/components/ui";
import { setWorkspaceActiveAction, setWorkspacePlanAction } from "./actions";

const fmt = (n: number) => n.toLocaleString("en");

/** The workspaces of one page of the directory: plan (changeable), usage this month, state (switchable). */
export function WorkspaceRows({ rows, plans }: { rows: DirectoryRow[]; plans: { id: string; name: string }[] }) {
  const router = useRouter();
  const toast = useToast();
  const [switching, setSwitching] = useState<DirectoryRow | null>(null);
  // a plan change waits for confirmation: choosing in the select only proposes it
  const [planChange, setPlanChange] = useState<{ row: DirectoryRow; plan: string } | null>(null);
  const planName = (id: string) => plans.find((p) => p.id === id)?.name ?? id;

  return (
    <div className="-mx-5 overflow-x-auto">
      <table className="w-full min-w-[760px] text-left text-sm">
        <thead className="text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="px-5 py-2 font-medium">Workspace</th>
            <th className="px-3 py-2 font-medium">Plan</th>
            <th className="px-3 py-2 font-medium">Links this month</th>
            <th className="px-3 py-2 font-medium">Members</th>
            <th className="px-3 py-2 font-medium">API keys</th>
            <th className="px-3 py-2 font-medium">State</th>
            <th className="px-5 py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((w) => (
            <tr key={w.slug} data-testid={`instance-workspace-${w.slug}`}>
              <td className="px-5 py-3">
                <p className="font-medium">{w.name}</p>
                <p className="text-xs text-slate-500">
                  {w.slug}
                  {w.owner && ` · ${w.owner}`}
                </p>
              </td>
              <td className="px-3 py-3">
                <select
                  aria-label={`Plan of ${w.slug}`}
                  value={w.plan.id}
                  onChange={(e) => setPlanChange({ row: w, plan: e.target.value })}
                  className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm"
                >
                  {!w.plan.known && <option value={w.plan.id}>{w.plan.id} (not in the plan table)</option>}
                  {plans.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </td>
              <td className="px-3 py-3">
                <p data-testid="links-this-month">
                  {fmt(w.createdThisMonth)} <span className="text-slate-500">of {fmt(w.maxLinks)}</span>
                </p>
                <div className="mt-1 w-32">
                  <ProgressBar value={w.createdThisMonth} max={w.maxLinks} label={`Links created this month in ${w.slug}`} />
                </div>
              </td>
              <td className="px-3 py-3">{fmt(w.members)}</td>
              <td className="px-3 py-3" data-testid="live-keys">
                {fmt(w.liveKeys)} <span className="text-slate-500">of {fmt(w.maxKeys)}</span>
              </td>
              <td className="px-3 py-3">{w.active ? <Badge tone="green">Active</Badge> : <Badge tone="red">Deactivated</Badge>}</td>
              <td className="px-5 py-3 text-right">
                <button className={secondaryButtonClass} onClick={() => setSwitching(w)}>
                  {w.active ? "Deactivate" : "Activate"}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ConfirmAction
        open={planChange !== null}
        setOpen={(open) => !open && setPlanChange(null)}
        action={() => run(setWorkspacePlanAction({ slug: planChange!.row.slug, plan: planChange!.plan }))}
        onDone={(r) => {
          toast(`${r.slug} is now on ${planName(r.plan)}.`);
          setPlanChange(null);
          router.refresh();
        }}
        title={planChange ? `Move ${planChange.row.slug} to ${planName(planChange.plan)}?` : ""}
        confirmLabel="Change plan"
      >
        {planChange && (
          <p className="text-sm text-slate-600">
            {planChange.row.name} moves from {planChange.row.plan.known ? planName(planChange.row.plan.id) : planChange.row.plan.id} to{" "}
            {planName(planChange.plan)} now: its limits and features change at once for every member and API key. Links already made stay.
          </p>
        )}
      </ConfirmAction>
      <ConfirmAction
        open={switching !== null}
        setOpen={(open) => !open && setSwitching(null)}
        action={() => run(setWorkspaceActiveAction({ slug: switching!.slug, active: !switching!.active }))}
        onDone={(r) => {
          toast(`${r.slug} is ${r.active ? "active again" : "deactivated"}.`);
          setSwitching(null);
          router.refresh();
        }}
        title={switching?.active ? `Deactivate ${switching.slug}?` : `Activate ${switching?.slug ?? ""}?`}
        confirmLabel={switching?.active ? "Deactivate" : "Activate"}
      >
        {switching?.active ? (
          <p className="text-sm text-slate-600">
            The workspace becomes read-only: its short links and API keys stop working, pending webhooks are cancelled and nothing can be
            changed until it is activated again. Nothing is deleted.
          </p>
        ) : (
          <p className="text-sm text-slate-600">Its short links, API keys and webhooks work again and its members can make changes.</p>
        )}
      </ConfirmAction>
    </div>
  );
}
