import Link from "next/link";
import { hasFeature, planOf } from "@/lib/plans";
import { Card, PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { RenameForm } from "./rename-form";
import { SecondFactorRequiredForm } from "./second-factor-form";
import { LogoForm } from "./logo-form";
import { MAX_LOGO_BYTES, workspaceLogoVersion } from "@/lib/workspaces/logo";

export default async function SettingsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, can } = await workspacePage(slug);
  const canManage = can("workspace.manage");
  const plan = planOf(workspace.plan);
  const logoVersion = await workspaceLogoVersion(workspace.id);
  const sections = [
    {
      href: `/w/${slug}/settings/usage`,
      title: "Plan and usage",
      text: "Your plan, links created this month, API rate and webhook endpoints.",
    },
    { href: `/w/${slug}/settings/api-keys`, title: "API keys", text: "Keys for the /api/v1 JSON API." },
    {
      href: `/w/${slug}/settings/campaigns`,
      title: "Tags and UTM templates",
      text: "Rename, recolour and delete tags; named UTM sets for the link form.",
    },
    ...(canManage
      ? [{ href: `/w/${slug}/developers`, title: "Developers", text: "Webhook endpoints, signing secrets and the delivery log." }]
      : []),
  ];
  return (
    <>
      <PageHeader title="Settings" description={`Workspace id ${workspace.slug}`} />
      <div className="space-y-6">
        <Card title="General">
          <RenameForm slug={slug} name={workspace.name} disabled={!canManage} />
          <p className="mt-4 text-sm text-slate-600">
            Plan: <span className="font-medium text-slate-900">{plan.name}</span>
          </p>
        </Card>
        <div id="qr-logo" className="scroll-mt-6">
          <Card title="QR code logo">
            <LogoForm
              slug={slug}
              logoUrl={logoVersion === null ? null : `/w/${slug}/logo?v=${logoVersion}`}
              maxKb={MAX_LOGO_BYTES / 1024}
              canManage={canManage}
            />
          </Card>
        </div>
        <Card title="Second factor">
          <p className="mb-4 text-sm text-slate-600">
            {workspace.requireTwoFactor
              ? "Required: members without a second factor see only a page asking them to set one up on their Account page. API keys keep working."
              : "When required, members without a second factor reach nothing of this workspace until they set one up on their Account page."}
          </p>
          {!hasFeature(plan, "RequireSecondFactor") ? (
            <p className="text-sm text-slate-600">Part of the Team and Business plans.</p>
          ) : can("security.manage") ? (
            <SecondFactorRequiredForm slug={slug} required={workspace.requireTwoFactor} />
          ) : (
            <p className="text-sm text-slate-600">Only a workspace owner can change this.</p>
          )}
        </Card>
        <div className="grid gap-4 sm:grid-cols-3">
          {sections.map((s) => (
            <Link key={s.href} href={s.href} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm hover:border-brand-500">
              <p className="font-medium">{s.title}</p>
              <p className="mt-1 text-sm text-slate-600">{s.text}</p>
            </Link>
          ))}
        </div>
      </div>
    </>
  );
}
