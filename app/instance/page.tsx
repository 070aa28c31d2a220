import type { Metadata } from "next";
import Link from "next/link";
import { instancePage } from "@/lib/actions/instance";
import { listInstanceAdmins, signupSetting } from "@/lib/instance";
import { plans } from "@/lib/plans";
import { workspaceDirectory } from "@/lib/workspaces";
import { Badge, Card, EmptyState, inputClass, PageHeader, secondaryButtonClass } from "@/components/ui";
import { SignupModeForm } from "./signup-mode-form";
import { WorkspaceRows } from "./workspace-rows";

export const metadata: Metadata = { title: "Instance" };

/** The instance administrator's page: every workspace (plan, usage, state) and who may sign up. */
export default async function InstancePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await instancePage();
  const sp = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const q = (one(sp.q) ?? "").slice(0, 100);
  const [directory, signup, admins] = await Promise.all([
    workspaceDirectory({ q, page: one(sp.page) ?? "1" }),
    signupSetting(),
    listInstanceAdmins(),
  ]);
  const pages = Math.max(1, Math.ceil(directory.total / directory.pageSize));
  const pageHref = (p: number) => `/instance?${new URLSearchParams({ ...(q ? { q } : {}), page: String(p) })}`;
  const planOptions = Object.values(plans()).map((p) => ({ id: p.id, name: p.name }));

  return (
    <>
      <PageHeader
        title="Instance"
        description="Everything on this Linkhop: workspaces with their plan, usage and state, and who may sign up. Only instance administrators see this page."
      />
      <div className="space-y-6">
        <Card
          title={`Workspaces (${directory.total.toLocaleString("en")})`}
          actions={
            <form role="search" className="flex gap-2" action="/instance">
              <label htmlFor="instance-q" className="sr-only">
                Find a workspace
              </label>
              <input
                id="instance-q"
                name="q"
                defaultValue={q}
                placeholder="Slug or name"
                maxLength={100}
                className={`${inputClass} w-48`}
              />
              <button className={secondaryButtonClass}>Find</button>
            </form>
          }
        >
          {directory.rows.length === 0 ? (
            <EmptyState title={q ? `No workspace matches "${q}".` : "No workspaces yet."} />
          ) : (
            <WorkspaceRows rows={directory.rows} plans={planOptions} />
          )}
          {pages > 1 && (
            <nav aria-label="Pages of workspaces" className="mt-4 flex items-center justify-between text-sm">
              {directory.page > 1 ? <Link href={pageHref(directory.page - 1)}>← Previous</Link> : <span />}
              <span className="text-slate-600">
                Page {directory.page} of {pages}
              </span>
              {directory.page < pages ? <Link href={pageHref(directory.page + 1)}>Next →</Link> : <span />}
            </nav>
          )}
        </Card>
        <Card title="Sign-up">
          <SignupModeForm setting={signup} />
        </Card>
        <Card title="Instance administrators">
          <ul className="space-y-1 text-sm" aria-label="Instance administrators">
            {admins.map((a) => (
              <li key={a.email} className="flex flex-wrap items-center gap-2">
                <span>{a.email}</span>
                {a.granted && <Badge tone="blue">admin CLI</Badge>}
                {a.listed && <Badge>INSTANCE_ADMINS</Badge>}
                {!a.instanceAdmin && <Badge tone="amber">address not verified yet</Badge>}
              </li>
            ))}
          </ul>
          <p className="mt-3 text-xs text-slate-600">
            Granted with <code className="font-mono">npm run admin -- instance:admin --email &lt;address&gt;</code> (take back with{" "}
            <code className="font-mono">--revoke</code>) or listed in INSTANCE_ADMINS, where an address counts once its owner has verified
            it.
          </p>
        </Card>
      </div>
    </>
  );
}
