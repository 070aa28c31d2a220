import Link from "next/link";
import { planOf } from "@/lib/plans";
import { Card, PageHeader } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { workspaceOverview } from "@/lib/workspaces";

export default async function WorkspaceHome({
  params,
  searchParams,
}: {
  params: Promise<{ slug: string }>;
  searchParams: Promise<{ joined?: string }>;
}) {
  const { slug } = await params;
  const { joined } = await searchParams;
  const { workspace } = await workspacePage(slug);
  const plan = planOf(workspace.plan);
  const { links, createdThisMonth, members } = await workspaceOverview(workspace.id);
  const stats = [
    { label: "Links", value: links, href: `/w/${slug}/links` },
    { label: "Created this month", value: `${createdThisMonth} / ${plan.maxLinks}`, href: `/w/${slug}/settings/usage` },
    { label: "Members", value: members, href: `/w/${slug}/members` },
  ];
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
            <p className="mt-1 text-2xl font-semibold">{s.value}</p>
          </Link>
        ))}
      </div>
      <div className="mt-6">
        <Card title="Get started">
          <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
            <li>
              <Link className="text-brand-600 hover:underline" href={`/w/${slug}/links`}>
                Shorten your first link
              </Link>
            </li>
            <li>
              <Link className="text-brand-600 hover:underline" href={`/w/${slug}/settings/api-keys`}>
                Create an API key
              </Link>{" "}
              and call{" "}
              <Link className="text-brand-600 hover:underline" href="/docs/api">
                the API
              </Link>
            </li>
            <li>
              <Link className="text-brand-600 hover:underline" href={`/w/${slug}/members`}>
                Invite your team
              </Link>
            </li>
          </ol>
        </Card>
      </div>
    </>
  );
}
