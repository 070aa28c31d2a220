import type { Metadata } from "next";
import { formatDateTime } from "@/components/dates";
import Link from "next/link";
import { listApiKeys } from "@/lib/keys";
import { hasFeature, planOf } from "@/lib/plans";
import { Badge, Card, EmptyState, PageHeader, ScrollArea, TextLink } from "@/components/ui";
import { workspacePage } from "@/lib/actions/workspace";
import { CreateKeyForm } from "./create-key-form";
import { RevokeKeyButton } from "./revoke-button";

// API keys of the workspace: every member sees the list (prefix, name, dates, status); owners and
// admins create keys (shown once) and revoke them.
export const metadata: Metadata = { title: "API keys" };

const when = (d: Date | null) => formatDateTime(d);
const TONE = { live: "green", revoked: "red", expired: "amber" } as const;

export default async function ApiKeysPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, can } = await workspacePage(slug);
  const canManage = can("keys.manage");
  const plan = planOf(workspace.plan);
  const keys = await listApiKeys(workspace);
  const live = keys.filter((k) => k.status === "live").length;
  const capMessage = `The ${plan.name} plan allows ${plan.liveKeys} live API key${plan.liveKeys === 1 ? "" : "s"}. Revoke a key or upgrade the plan to create another.`;
  return (
    <>
      <PageHeader
        title="API keys"
        description={`Keys for the JSON API under /api/v1. ${live} of ${plan.liveKeys} live keys used on the ${plan.name} plan.`}
        actions={<TextLink href="/docs/api">API reference</TextLink>}
      />
      <div className="space-y-6">
        {!hasFeature(plan, "ApiAccess") && (
          <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            The {plan.name} plan does not include API access: requests with these keys answer 403.{" "}
            <Link className="font-medium underline" href={`/w/${slug}/settings/usage`}>
              See plans
            </Link>
          </p>
        )}
        <Card title="Create a key">
          {canManage ? (
            <CreateKeyForm slug={slug} atCap={live >= plan.liveKeys} capMessage={capMessage} />
          ) : (
            <p className="text-sm text-slate-600">Only owners and admins can create or revoke API keys.</p>
          )}
        </Card>
        <Card title="Keys">
          {keys.length === 0 ? (
            <EmptyState title="No API keys yet">Create one above, then send it as Authorization: Bearer &lt;key&gt;.</EmptyState>
          ) : (
            // On a phone the three dates go under the name, so Revoke stays on screen.
            <ScrollArea label="API keys">
              <table className="w-full text-left text-sm">
                <thead className="text-xs uppercase text-slate-500">
                  <tr>
                    <th className="py-2 pr-4">Key</th>
                    <th className="py-2 pr-4">Name</th>
                    <th className="hidden py-2 pr-4 sm:table-cell">Created</th>
                    <th className="hidden py-2 pr-4 sm:table-cell">Last used</th>
                    <th className="hidden py-2 pr-4 sm:table-cell">Expires</th>
                    <th className="py-2 pr-4">Status</th>
                    {canManage && (
                      <th className="py-2">
                        <span className="sr-only">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {keys.map((k) => (
                    <tr key={k.id} data-key-id={k.id}>
                      <td className="py-2 pr-4 font-mono text-xs">{k.prefix}…</td>
                      <td className="py-2 pr-4">
                        {k.name || <span className="text-slate-500">(no name)</span>}
                        <dl className="mt-1 space-y-0.5 text-xs text-slate-600 sm:hidden">
                          <div>
                            <dt className="inline">Created </dt>
                            <dd className="inline">{when(k.createdAt)}</dd>
                          </div>
                          <div>
                            <dt className="inline">Last used </dt>
                            <dd className="inline">{k.lastUsedAt ? when(k.lastUsedAt) : "Never"}</dd>
                          </div>
                          <div>
                            <dt className="inline">Expires </dt>
                            <dd className="inline">{k.expiresAt ? when(k.expiresAt) : "Never"}</dd>
                          </div>
                        </dl>
                      </td>
                      <td className="hidden whitespace-nowrap py-2 pr-4 sm:table-cell">{when(k.createdAt)}</td>
                      <td className="hidden whitespace-nowrap py-2 pr-4 sm:table-cell">{k.lastUsedAt ? when(k.lastUsedAt) : "Never"}</td>
                      <td className="hidden whitespace-nowrap py-2 pr-4 sm:table-cell">{k.expiresAt ? when(k.expiresAt) : "Never"}</td>
                      <td className="py-2 pr-4">
                        <Badge tone={TONE[k.status]}>{k.status}</Badge>
                      </td>
                      {canManage && (
                        <td className="py-2 text-right">
                          {k.status === "live" && <RevokeKeyButton slug={slug} id={k.id} label={`${k.prefix}…`} />}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollArea>
          )}
        </Card>
      </div>
    </>
  );
}
