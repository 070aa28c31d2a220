import type { Metadata } from "next";
import { formatDate } from "@/components/dates";
import Link from "next/link";
import { now as clockNow } from "@/lib/clock";
import { FEATURES, hasFeature, planOf, plans, webhooksAllowed, type Feature } from "@/lib/plans";
import { ProgressBar } from "@/components/progress";
import { Badge, Card, PageHeader, ScrollArea } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { workspaceUsage } from "@/lib/workspaces";
import { ChangePlan } from "./change-plan";

export const metadata: Metadata = { title: "Plan and usage" };

const FEATURE_LABEL: Record<Feature, string> = {
  ApiAccess: "API access",
  CustomAliases: "Custom aliases",
  LinkExpiry: "Start and expiry times",
  LinkPasswords: "Password-protected links",
  CustomDomains: "Custom domains",
  BulkLinks: "Bulk import and bulk API",
  Webhooks: "Webhooks",
  RequireSecondFactor: "Require a second factor from members",
  RedirectRules: "Redirect rules and path forwarding",
  LinkPreviews: "Social preview cards",
  ABTesting: "A/B split tests",
};

export default async function UsagePage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, userId, can } = await workspacePage(slug);
  const plan = planOf(workspace.plan);
  const now = clockNow();
  const { createdThisMonth: created, liveKeys, endpoints } = await workspaceUsage(workspace.id, now);
  const resets = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const pct = plan.maxLinks > 0 ? created / plan.maxLinks : 1;
  const fmt = (n: number) => n.toLocaleString("en");

  return (
    <>
      <PageHeader
        title="Plan and usage"
        description={`The ${plan.name} plan: what it includes and how much of it this workspace uses.`}
        actions={
          <Link href={`/w/${slug}/settings`} className="text-sm font-medium text-brand-600 hover:underline">
            ← Settings
          </Link>
        }
      />
      <div id="change-plan" className="mb-4 scroll-mt-4">
        <ChangePlan slug={slug} workspaceId={workspace.id} userId={userId} canManage={can("workspace.manage")} />
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Links created this month">
          <p className="text-3xl font-semibold">
            {fmt(created)} <span className="text-base font-normal text-slate-500">of {fmt(plan.maxLinks)}</span>
          </p>
          <div className="mt-3">
            <ProgressBar
              value={created}
              max={plan.maxLinks}
              label="Links created this month"
              tone={pct >= 1 ? "red" : pct >= 0.8 ? "amber" : "brand"}
            />
          </div>
          <p className="mt-2 text-xs text-slate-500">
            {fmt(Math.max(0, plan.maxLinks - created))} left · resets {formatDate(resets)} (UTC). Deleting links does not give allowance
            back.
          </p>
        </Card>
        <Card title="API">
          <dl className="grid grid-cols-2 gap-4 text-sm">
            <div>
              <dt className="text-slate-500">Rate limit</dt>
              <dd className="mt-1 text-lg font-semibold">{plan.rateLimit === null ? "Unlimited" : `${fmt(plan.rateLimit)} / 60 s`}</dd>
              <dd className="text-xs text-slate-500">per key</dd>
            </div>
            <div>
              <dt className="text-slate-500">Live API keys</dt>
              <dd className="mt-1 text-lg font-semibold">
                {liveKeys} <span className="text-sm font-normal text-slate-500">of {plan.liveKeys}</span>
              </dd>
              <dd className="mt-1">
                <ProgressBar value={liveKeys} max={plan.liveKeys} label="Live API keys" />
              </dd>
            </div>
          </dl>
          {!hasFeature(plan, "ApiAccess") && <p className="mt-3 text-xs text-amber-700">This plan has no API access.</p>}
          <Link href={`/w/${slug}/settings/api-keys`} className="mt-4 inline-block text-sm font-medium text-brand-600 hover:underline">
            Manage API keys
          </Link>
        </Card>
        <Card title="Webhook endpoints">
          {webhooksAllowed(plan) ? (
            <>
              <p className="text-3xl font-semibold">
                {endpoints} <span className="text-base font-normal text-slate-500">of {plan.webhookEndpoints}</span>
              </p>
              <div className="mt-3">
                <ProgressBar value={endpoints} max={plan.webhookEndpoints} label="Webhook endpoints" />
              </div>
            </>
          ) : (
            <p className="text-sm text-slate-600">
              Webhooks are not included in the {plan.name} plan.
              {endpoints > 0 && ` ${endpoints} endpoint${endpoints === 1 ? " stays" : "s stay"} listed but nothing is sent.`}
            </p>
          )}
          <Link href={`/w/${slug}/developers`} className="mt-4 inline-block text-sm font-medium text-brand-600 hover:underline">
            Developers
          </Link>
        </Card>
        <Card title="Features">
          <ul className="space-y-2 text-sm">
            {FEATURES.map((f) => (
              <li key={f} className="flex items-center justify-between gap-2">
                <span>{FEATURE_LABEL[f]}</span>
                {hasFeature(plan, f) ? <Badge tone="green">Included</Badge> : <Badge>Not included</Badge>}
              </li>
            ))}
          </ul>
        </Card>
      </div>
      <div className="mt-4">
        <Card title="Plans">
          <ScrollArea label="Plans compared" className="-mx-5">
            <table className="w-full min-w-[560px] text-left text-sm">
              <thead className="text-xs uppercase tracking-wide text-slate-500">
                <tr>
                  <th className="px-5 py-2 font-medium">Plan</th>
                  <th className="px-3 py-2 font-medium">Links / month</th>
                  <th className="px-3 py-2 font-medium">API / 60 s</th>
                  <th className="px-3 py-2 font-medium">Live keys</th>
                  <th className="px-3 py-2 font-medium">Webhook endpoints</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {Object.values(plans()).map((p) => (
                  <tr key={p.id} className={p.id === plan.id ? "bg-brand-50" : undefined}>
                    <td className="px-5 py-2 font-medium">
                      {p.name} {p.id === plan.id && <Badge tone="blue">Current</Badge>}
                    </td>
                    <td className="px-3 py-2">{fmt(p.maxLinks)}</td>
                    <td className="px-3 py-2">{p.rateLimit === null ? "Unlimited" : fmt(p.rateLimit)}</td>
                    <td className="px-3 py-2">{p.liveKeys}</td>
                    <td className="px-3 py-2">{webhooksAllowed(p) ? p.webhookEndpoints : "None"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollArea>
        </Card>
      </div>
    </>
  );
}
