import type { Metadata } from "next";
import Link from "next/link";
import { SELECTABLE_EVENT_TYPES } from "@/lib/events";
import { planOf, plans, webhooksAllowed } from "@/lib/plans";
import { endpointBacklogs, endpointUrlHint, listEndpoints } from "@/lib/webhooks";
import { Badge, Card, EmptyState, PageHeader } from "@/components/ui";
import { UpgradeBanner } from "@/components/upgrade-hint";
import { workspacePage } from "@/lib/actions/workspace";
import { EnabledSwitch } from "./endpoint-controls";
import { AddEndpointButton } from "./endpoint-form";
import { describeEvents, formatTime } from "./format";
import { OwnersAndAdminsOnly } from "./owners-only";
import { BacklogLine } from "./backlog-line";

export const metadata: Metadata = { title: "Developers" };

export default async function DevelopersPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { workspace, can } = await workspacePage(slug);
  if (!can("webhooks.view")) return <OwnersAndAdminsOnly />;

  const plan = planOf(workspace.plan);
  const canSend = webhooksAllowed(plan);
  const endpoints = await listEndpoints(workspace.id);
  const backlogs = await endpointBacklogs(workspace.id);
  const atCap = endpoints.length >= plan.webhookEndpoints;
  const cheapest = Object.values(plans()).find((p) => webhooksAllowed(p));

  return (
    <>
      <PageHeader
        title="Developers"
        description="Webhook endpoints receive a signed POST when something happens in this workspace."
        actions={
          <AddEndpointButton
            slug={slug}
            eventTypes={[...SELECTABLE_EVENT_TYPES]}
            urlHint={endpointUrlHint()}
            disabled={!canSend || atCap}
            disabledReason={
              !canSend
                ? `The ${plan.name} plan does not include webhooks`
                : atCap
                  ? `The ${plan.name} plan allows ${plan.webhookEndpoints} endpoints`
                  : undefined
            }
          />
        }
      />
      {!canSend && (
        <UpgradeBanner slug={slug}>
          Webhooks are not included in the {plan.name} plan{cheapest ? `; they come with ${cheapest.name} and higher` : ""}.
          {endpoints.length > 0 && " Your endpoints stay listed and can be edited or removed, but nothing is sent to them."}
        </UpgradeBanner>
      )}
      <div className="space-y-4">
        {endpoints.length === 0 ? (
          <EmptyState title="No webhook endpoints yet">
            {canSend ? "Add an endpoint to receive link, domain and member events." : "Upgrade the plan to add one."}
          </EmptyState>
        ) : (
          <Card title={`Endpoints (${endpoints.length} of ${plan.webhookEndpoints})`}>
            <ul className="divide-y divide-slate-100">
              {endpoints.map((e) => (
                <li key={e.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                  <div className="min-w-0 flex-1">
                    <Link
                      href={`/w/${slug}/developers/${e.id}`}
                      className="break-all font-mono text-sm font-medium text-brand-700 hover:underline"
                    >
                      {e.url}
                    </Link>
                    {e.description && <p className="text-sm text-slate-700">{e.description}</p>}
                    <p className="mt-0.5 text-xs text-slate-500">{describeEvents(e.events)}</p>
                    <BacklogLine backlog={backlogs.get(e.id)} />
                    {!e.enabled && e.disabledReason && (
                      <p className="mt-1 text-xs text-red-700">
                        Disabled {formatTime(e.disabledAt)}: {e.disabledReason}
                      </p>
                    )}
                  </div>
                  <div className="flex items-center gap-3">
                    {e.enabled ? (
                      e.failingSince ? (
                        <Badge tone="amber">Failing</Badge>
                      ) : (
                        <Badge tone="green">Enabled</Badge>
                      )
                    ) : (
                      <Badge tone="red">Disabled</Badge>
                    )}
                    <EnabledSwitch slug={slug} id={e.id} enabled={e.enabled} url={e.url} />
                    <Link href={`/w/${slug}/developers/${e.id}`} className="text-sm font-medium text-brand-600 hover:underline">
                      Manage
                    </Link>
                  </div>
                </li>
              ))}
            </ul>
          </Card>
        )}
        <Card title="Receiving webhooks">
          <p className="text-sm text-slate-700">
            Every delivery carries <code className="font-mono text-xs">Service-Signature</code>; verify it with the endpoint&apos;s signing
            secret over the raw body. Failed deliveries are retried up to 7 times over about 21 hours.{" "}
            <Link href="/docs/webhooks" className="font-medium text-brand-600 underline underline-offset-2 hover:text-brand-700">
              Read the webhook guide
            </Link>
            .
          </p>
        </Card>
      </div>
    </>
  );
}
