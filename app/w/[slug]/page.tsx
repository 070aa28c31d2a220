import Link from "next/link";
import { analyticsReport } from "@/lib/analytics/reports/report";
import { listLinks } from "@/lib/links";
import { hasFeature, planOf } from "@/lib/plans";
import { Card, PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { workspaceOverview, workspaceUsage } from "@/lib/workspaces";
import { isInstanceAdmin } from "@/lib/instance";
import { ClicksCard, fmt, RecentLinksCard, TopLinksCard } from "./overview-sections";

/** Newest links shown; top links come from the analytics report's links panel (bounded there). */
const RECENT = 5;

export default async function WorkspaceHome({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ joined?: string }>;
}) {
  const { slug } = await params;
  const { joined } = await searchParams;
  const { workspace, can, userId } = await workspacePage(slug);
  const plan = planOf(workspace.plan);
  const [{ links, createdThisMonth, members }, { liveKeys }, report, recent, operator] = await Promise.all([
    workspaceOverview(workspace.id),
    workspaceUsage(workspace.id),
    analyticsReport(workspace, { interval: "7d" }, { panels: ["links"] }),
    listLinks(workspace, { size: RECENT }),
    isInstanceAdmin(userId),
  ]);
  const stats = [
    { label: "Links", value: fmt(links), href: `/w/${slug}/links` },
    { label: "Created this month", value: `${fmt(createdThisMonth)} of ${fmt(plan.maxLinks)}`, href: `/w/${slug}/settings/usage` },
    { label: "Members", value: fmt(members), href: `/w/${slug}/members` },
  ];
  // Each hint only while it is still to do, and only to whoever can do it.
  const hints = [
    // every workspace starts on the default plan: whoever runs the instance picks theirs there
    links === 0 && operator && (
      <li key="operator">
        <Link className="text-brand-600 hover:underline" href="/instance">
          You run this instance: choose your plan
        </Link>
      </li>
    ),
    links === 0 && (
      <li key="link">
        <Link className="text-brand-600 hover:underline" href={`/w/${slug}/links/new`}>
          Shorten your first link
        </Link>
      </li>
    ),
    liveKeys === 0 && can("keys.manage") && hasFeature(plan, "ApiAccess") && (
      <li key="key">
        <Link className="text-brand-600 hover:underline" href={`/w/${slug}/settings/api-keys`}>
          Create an API key
        </Link>{" "}
        and call{" "}
        <Link className="text-brand-600 hover:underline" href="/docs/api">
          the API
        </Link>
      </li>
    ),
    members === 1 && can("members.manage") && (
      <li key="invite">
        <Link className="text-brand-600 hover:underline" href={`/w/${slug}/members`}>
          Invite your team
        </Link>
      </li>
    ),
  ].filter(Boolean);
  return (
    <>
      {joined === "1" && (
        <p role="status" className="mb-4 rounded-md border border-green-200 bg-green-50 px-3 py-2 text-sm text-green-800">
          You joined {workspace.name}. Welcome!
        </p>
      )}
      <PageHeader title={workspace.name} description={`Workspace ${workspace.slug} on the ${plan.name} plan`} />
      <div className="grid gap-4 sm:grid-cols-3">
        {stats.map((s) => (
          <Link key={s.label} href={s.href} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm hover:border-brand-500">
            <p className="text-sm text-slate-600">{s.label}</p>
            <p className="mt-1 text-2xl font-semibold" data-testid={`overview-${s.label.toLowerCase().replace(/ /g, "-")}`}>
              {s.value}
            </p>
          </Link>
        ))}
      </div>
      {hints.length > 0 && (
        <div className="mt-6">
          <Card title="Get started">
            <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">{hints}</ol>
          </Card>
        </div>
      )}
      <div className="mt-6">
        <ClicksCard slug={slug} report={report} />
      </div>
      <div className="mt-6 grid gap-4 lg:grid-cols-2">
        <TopLinksCard slug={slug} report={report} />
        <RecentLinksCard slug={slug} links={recent.links} />
      </div>
    </>
  );
}
