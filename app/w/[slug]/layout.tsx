import Link from "next/link";
import { DEACTIVATED_MESSAGE, workspacesOf } from "@/lib/workspaces";
import { planOf } from "@/lib/plans";
import { AccountLinks } from "@/app/(auth)/account-links";
import { VerifyEmailNotice } from "@/app/(auth)/account/verify-notice";
import { unverifiedEmailOf } from "@/lib/auth/verification";
import { isInstanceAdmin } from "@/lib/instance";
import { workspacePage } from "@/lib/actions/workspace";
import { NavLinks } from "./nav-links";
import { NavMenu } from "./nav-menu";
import { WorkspaceSwitcher } from "./workspace-switcher";

export const dynamic = "force-dynamic";

export default async function WorkspaceLayout({ children, params }: { children: React.ReactNode; params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, role, userId, can } = await workspacePage(slug);
  const [all, unverifiedEmail, instanceAdmin] = await Promise.all([
    workspacesOf(userId),
    unverifiedEmailOf(userId),
    isInstanceAdmin(userId),
  ]);
  // only instance administrators are shown the way to the Instance page (lib/instance)
  const instanceLink = instanceAdmin && (
    <Link href="/instance" className="text-sm text-slate-600 hover:text-slate-900">
      Instance
    </Link>
  );
  const plan = planOf(workspace.plan);
  return (
    <div className="min-h-screen md:flex">
      <aside className="border-b border-slate-200 bg-white md:sticky md:top-0 md:h-screen md:w-60 md:shrink-0 md:border-b-0 md:border-r">
        <NavMenu
          top={
            <Link href={`/w/${slug}`} className="text-lg font-bold tracking-tight text-brand-600">
              Linkhop
            </Link>
          }
        >
          <div className="px-4 pb-3">
            <WorkspaceSwitcher current={slug} workspaces={all.map((w) => ({ slug: w.slug, name: w.name }))} />
            <p className="mt-1 text-xs text-slate-600">
              {plan.name} plan · {role}
              {!workspace.active && <span className="ml-1 font-medium text-red-600">· inactive</span>}
            </p>
          </div>
          <NavLinks slug={slug} canManage={can("webhooks.view")} />
          <div className="flex gap-4 p-4 md:absolute md:bottom-0">
            <AccountLinks>{instanceLink}</AccountLinks>
          </div>
        </NavMenu>
      </aside>
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-6xl flex-1 px-4 py-4 md:px-8 md:py-8">
        {!workspace.active && (
          <div
            role="status"
            data-testid="workspace-deactivated"
            className="mb-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800"
          >
            {DEACTIVATED_MESSAGE} Short links and the API are switched off too, and no webhooks are sent.
          </div>
        )}
        {unverifiedEmail && <VerifyEmailNotice email={unverifiedEmail} />}
        {children}
      </main>
    </div>
  );
}
