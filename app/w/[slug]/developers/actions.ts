"use server";
import { z } from "zod";
import { workspaceAction } from "@/lib/actions/workspace";
import type { ClickScopeInput } from "./click-scope-fields";
import { idSchema } from "@/lib/ids";
import {
  createEndpoint,
  deleteEndpoint,
  replaceSecret,
  resendDelivery,
  revealSecret,
  sendTestEvent,
  setEndpointEnabled,
  updateEndpoint,
  type AttemptResult,
  type EndpointView,
} from "@/lib/webhooks";

// The Developers page's actions: owners and admins only (webhooks.manage), each scoped to the
// workspace in the URL. The endpoint fields are checked by lib/webhooks, which names the problem.

export type EndpointInput = { url: string; description: string; events: "all" | string[]; clickScope?: ClickScopeInput };
export type AttemptSummary = Pick<AttemptResult, "attempted" | "delivered" | "outcome" | "statusCode" | "message">;

const summary = (r: AttemptResult): AttemptSummary => ({
  attempted: r.attempted,
  delivered: r.delivered,
  outcome: r.outcome,
  statusCode: r.statusCode,
  message: r.message,
});
const endpoint = z.object({ id: idSchema });
const endpointPage = (input: { id: number }) => `/developers/${input.id}`;

export const createEndpointAction = workspaceAction(
  { permission: "webhooks.manage", schema: z.unknown(), revalidate: "/developers" },
  async ({ workspace }, input): Promise<EndpointView> => {
    const { secret: _secret, ...view } = await createEndpoint(workspace.id, input);
    return view;
  },
);

export const updateEndpointAction = workspaceAction(
  {
    permission: "webhooks.manage",
    schema: z.object({ id: idSchema, input: z.unknown() }),
    revalidate: { path: "/developers", layout: true },
  },
  async ({ workspace }, { id, input }) => updateEndpoint(workspace.id, id, input),
);

export const setEnabledAction = workspaceAction(
  {
    permission: "webhooks.manage",
    schema: z.object({ id: idSchema, enabled: z.boolean() }),
    revalidate: { path: "/developers", layout: true },
  },
  async ({ workspace }, { id, enabled }) => setEndpointEnabled(workspace.id, id, enabled),
);

export const deleteEndpointAction = workspaceAction(
  { permission: "webhooks.manage", schema: endpoint, revalidate: "/developers" },
  async ({ workspace }, { id }) => {
    await deleteEndpoint(workspace.id, id);
    return { id };
  },
);

export const revealSecretAction = workspaceAction({ permission: "webhooks.view", schema: endpoint }, async ({ workspace }, { id }) =>
  revealSecret(workspace.id, id),
);

export const replaceSecretAction = workspaceAction({ permission: "webhooks.manage", schema: endpoint }, async ({ workspace }, { id }) =>
  replaceSecret(workspace.id, id),
);

export const sendTestAction = workspaceAction(
  { permission: "webhooks.manage", schema: endpoint, revalidate: endpointPage },
  async ({ workspace }, { id }) => summary(await sendTestEvent(id, workspace.id)),
);

export const resendAction = workspaceAction(
  { permission: "webhooks.manage", schema: z.object({ id: idSchema, deliveryId: idSchema }), revalidate: endpointPage },
  async ({ workspace }, { deliveryId }) => summary(await resendDelivery(workspace.id, deliveryId)),
);

/** The Test card's second button: a sample link.clicked (made-up click and link) to this endpoint alone. */
export const sendClickedSampleAction = workspaceAction(
  { permission: "webhooks.manage", schema: endpoint, revalidate: endpointPage },
  async ({ workspace }, { id }) => summary(await sendTestEvent(id, workspace.id, "link.clicked")),
);
