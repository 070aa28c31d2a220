import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { parseIdParam } from "@/lib/http/params";
import { SELECTABLE_EVENT_TYPES } from "@/lib/events";
import { ServiceError } from "@/lib/errors";
import { planOf, webhooksAllowed } from "@/lib/plans";
import { deliveryLog, endpointBacklogs, endpointUrlHint, getEndpoint, logFilterSchema, type EndpointView } from "@/lib/webhooks";
import { clickScopeInput } from "../format";
import { ClickedSampleButton } from "./clicked-sample-button";
import { Badge, Card, PageHeader } from "@/components/ui";
import { UpgradeBanner } from "@/components/upgrade-hint";
import { workspacePage } from "@/lib/actions/workspace";
import { DeleteEndpointButton, EnabledSwitch } from "../endpoint-controls";
import { EditEndpointForm } from "../endpoint-form";
import { formatTime } from "../format";
import { OwnersAndAdminsOnly } from "../owners-only";
import { BacklogLine } from "../backlog-line";
import { DeliveryLog } from "./delivery-log";
import { SecretPanel } from "./secret-panel";
import { TestButton } from "./test-button";

export const metadata: Metadata = { title: "Webhook endpoint" };

type Props = {
  params: Promise<{ slug: string; endpointId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function EndpointPage({ params, searchParams }: Props) {
  const { slug, endpointId } = await params;
  const { workspace, can } = await workspacePage(slug);
  if (!can("webhooks.view")) return <OwnersAndAdminsOnly />;
  const id = parseIdParam(endpointId);
  if (id === null) notFound();
  let endpoint: EndpointView;
  try {
    endpoint = await getEndpoint(workspace.id, id);
  } catch (e) {
    if (e instanceof ServiceError && e.code === "not_found") notFound();
    throw e;
  }
  const raw = await searchParams;
  const filter = logFilterSchema.parse({
    status: one(raw.status) || undefined,
    type: one(raw.type) || undefined,
    before: one(raw.before) || undefined,
  });
  const log = await deliveryLog(workspace.id, endpoint.id, filter);
  const backlog = (await endpointBacklogs(workspace.id, { endpointId: endpoint.id })).get(endpoint.id);
  const plan = planOf(workspace.plan);
  const canSend = webhooksAllowed(plan);

  return (
    <>
      <p className="mb-2 text-sm">
        <Link href={`/w/${slug}/developers`} className="text-brand-600 hover:underline">
          ← Developers
        </Link>
      </p>
      <PageHeader
        title="Webhook endpoint"
        description={endpoint.url}
        actions={
          <div className="flex items-center gap-3">
            {endpoint.enabled ? <Badge tone="green">Enabled</Badge> : <Badge tone="red">Disabled</Badge>}
            <EnabledSwitch slug={slug} id={endpoint.id} enabled={endpoint.enabled} url={endpoint.url} />
          </div>
        }
      />
      {!canSend && (
        <UpgradeBanner slug={slug}>
          The {plan.name} plan does not include webhooks: nothing is sent to this endpoint until the plan includes them again.
        </UpgradeBanner>
      )}
      {!endpoint.enabled && (
        <div role="status" className="mb-6 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          Disabled {formatTime(endpoint.disabledAt)}
          {endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ""}. Nothing is sent and new events are not kept for it. Turn it on to
          start again; its failure count restarts.
        </div>
      )}
      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Settings">
          <EditEndpointForm
            slug={slug}
            id={endpoint.id}
            initial={{
              url: endpoint.url,
              description: endpoint.description,
              events: endpoint.events,
              clickScope: clickScopeInput(endpoint),
            }}
            eventTypes={[...SELECTABLE_EVENT_TYPES]}
            urlHint={endpointUrlHint()}
          />
        </Card>
        <div className="space-y-6">
          <Card title="Signing secret">
            <SecretPanel slug={slug} id={endpoint.id} />
          </Card>
          <Card title="Test">
            <p className="mb-3 text-sm text-slate-600">Sends a webhook.test event to this endpoint only: one attempt, never retried.</p>
            <TestButton slug={slug} id={endpoint.id} disabled={!endpoint.enabled || !canSend} />
            <div className="mt-3">
              <ClickedSampleButton slug={slug} id={endpoint.id} disabled={!endpoint.enabled || !canSend} />
            </div>
          </Card>
          <Card title="Health">
            <dl className="grid grid-cols-2 gap-2 text-sm">
              <dt className="text-slate-500">Last delivered</dt>
              <dd>{formatTime(endpoint.lastSuccessAt)}</dd>
              <dt className="text-slate-500">Failing since</dt>
              <dd>{formatTime(endpoint.failingSince)}</dd>
              <dt className="text-slate-500">Events failed in a row</dt>
              <dd>{endpoint.consecutiveFailures} of 20</dd>
            </dl>
            <BacklogLine backlog={backlog} />
          </Card>
        </div>
      </div>
      <div className="mt-6">
        <DeliveryLog
          slug={slug}
          endpointId={endpoint.id}
          log={log}
          filter={filter}
          eventTypes={["webhook.test", ...SELECTABLE_EVENT_TYPES]}
        />
      </div>
      <div className="mt-6 flex justify-end">
        <DeleteEndpointButton slug={slug} id={endpoint.id} url={endpoint.url} />
      </div>
    </>
  );
}

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
